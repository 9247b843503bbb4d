import SystemPackage

/// The whole of a small input file, such as a catalog, read to its end
/// (so a pipe, `<(curl …)`, will do).
public func readWholeInput(_ path: String) throws(FileError) -> [UInt8] {
    let file = try FileDescriptor.openInput(path)
    defer { try? file.close() }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n: Int
        do {
            n = try chunk.withUnsafeMutableBytes { try file.read(into: $0) }
        } catch {
            throw FileError(path: path, operation: "reading", reason: "\(error)")
        }
        if n == 0 { return bytes }
        bytes += chunk[..<n]
    }
}
