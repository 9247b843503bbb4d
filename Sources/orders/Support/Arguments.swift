import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the command line held before Swift read it as `String`s.
enum Arguments {
    /// The first argument that is not valid UTF-8: its position, and how
    /// Swift reads it, with U+FFFD in place of each bad sequence. Read so,
    /// an id would name another (`--cart $'\xff'` the cart named U+FFFD),
    /// a file another file, and `import` would create a log under a name
    /// that was never given.
    static func firstNotUTF8() -> (position: Int, read: String)? {
        for index in 1..<Int(CommandLine.argc) {
            guard let raw = CommandLine.unsafeArgv[index] else { continue }
            let bytes = UnsafeBufferPointer(start: raw, count: strlen(raw)).map { UInt8(bitPattern: $0) }
            if String(validating: bytes, as: UTF8.self) == nil { return (index, String(decoding: bytes, as: UTF8.self)) }
        }
        return nil
    }

    /// Refuses a command line that is not all UTF-8, before anything reads it.
    static func checkUTF8() throws(ValidationError) {
        guard let bad = firstNotUTF8() else { return }
        throw ValidationError(
            "argument \(bad.position) (\(bad.read) as read) is not valid UTF-8: orders reads ids and file names as UTF-8 (a file so named can still be given as standard input, -)"
        )
    }
}
