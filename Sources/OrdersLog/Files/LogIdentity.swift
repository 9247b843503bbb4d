import OrdersCore
import OrdersFiles
import OrdersFormat
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The id that names a log (`Orders-Log` on every answer of `orders serve`):
/// 32 hexadecimal digits in `LOG.id` beside it, so that a client tells one
/// log from another behind one address.
///
/// It is made at random when a writer creates the log. A log of an earlier
/// release has none; its first writer derives one from the log's first
/// batch (or makes one at random if the log has none), so that two serves
/// of one log agree. `orders compact` keeps the file, and opens its writer,
/// which writes it, before it rewrites the first batch. It is a record, not
/// a derived file: copy it with the log, and a copy is the same log.
public enum LogIdentity {
    public static func path(of log: String) -> String { log + ".id" }

    /// The file beside the log is not an id.
    struct Malformed: OrdersError, CustomStringConvertible {
        var path: String
        var description: String {
            "\(path): not a log's id (32 hexadecimal digits and a line feed); remove it, and the log's next writer derives one from its first batch"
        }
        var code: ErrorCode { .corruptLog }
    }

    /// The id of the log at `log`, as its writer left it.
    /// - Throws: ``FileError`` if there is none, ``Malformed`` if it is not an id.
    public static func read(of log: String) throws -> String {
        let path = path(of: log)
        let bytes = try readWholeInput(path)
        guard bytes.count == 33, bytes.last == 0x0A, bytes.dropLast().allSatisfy(isLowerHex) else { throw Malformed(path: path) }
        return String(decoding: bytes.dropLast(), as: UTF8.self)
    }

    /// Writes a new id for the log at `log`, created now, in place of any other there, durably.
    static func make(for log: String) throws {
        var random = SystemRandomNumberGenerator()
        try write((random.next() as UInt64, random.next() as UInt64), for: log)
    }

    /// Writes the log's id if it has none: derived from `firstBatch`, or made now if it has no batch.
    static func keep(for log: String, firstBatch: BatchHeader?) throws {
        guard access(path(of: log), F_OK) != 0 else { return }
        guard let batch = firstBatch else { return try make(for: log) }
        try write(
            (UInt64(batch.frameCRC) << 32 | UInt64(batch.eventCount), UInt64(bitPattern: batch.minAt) ^ UInt64(batch.payloadSize) << 40),
            for: log)
    }

    private static func write(_ words: (UInt64, UInt64), for log: String) throws {
        let hex = hexadecimal(words.0) + hexadecimal(words.1)
        try replaceFile(path(of: log), with: Array((hex + "\n").utf8))
    }

    private static func hexadecimal(_ word: UInt64) -> String {
        let digits = String(word, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) }
}
