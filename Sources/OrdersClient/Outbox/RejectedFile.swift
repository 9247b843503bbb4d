import OrdersFiles
import OrdersFormat
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `rejected.ndjson` in the outbox's folder: the events the server refused,
/// appended and synced before they leave the outbox, so that none is lost
/// silently. Fix them and send the file again.
enum RejectedFile {
    static func append(_ lines: [UInt8], in directory: String) throws {
        let path = directory + "/rejected.ndjson"
        let file = try FileDescriptor.open(
            FilePath(path), .writeOnly, options: [.create, .append, .closeOnExec], permissions: [.ownerReadWrite])
        try file.closeAfter {
            _ = try lines.withUnsafeBytes { try file.writeAll($0) }
            guard durableSync(file.rawValue) == 0 else { throw Errno(rawValue: errno) }
        }
        try syncDirectory(of: path)
    }
}
