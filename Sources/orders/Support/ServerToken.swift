import OrdersFiles
import OrdersFormat
import OrdersLog

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bearer token in a `--token-file`: its first line, trimmed.
enum ServerToken {
    /// - Throws: ``FileError`` if it cannot be read, ``InputError`` if it is empty.
    static func read(_ path: String) throws -> String {
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & (S_IRWXG | S_IRWXO) != 0 {
            Console.note("orders: warning: \(path): the token file can be read by others than its owner (chmod 600 it)")
        }
        let text = String(decoding: try readWholeInput(path), as: UTF8.self)
        let token = text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !token.isEmpty else { throw InputError(file: path, message: "the token file is empty") }
        return token
    }
}
