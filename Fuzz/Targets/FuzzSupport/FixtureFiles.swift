import Glibc
import OrdersFormat

/// Copies the file at `from` to `to`, replacing it: how a target's fixture keeps and restores its log.
public func copyFile(_ from: String, to: String) {
    let input = open(from, O_RDONLY), output = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while case let n = read(input, &buffer, buffer.count), n > 0 { _ = write(output, buffer, n) }
    close(input)
    close(output)
}

/// Writes `text` to a file at `path`, replacing it.
public func storeFile(_ text: String, at path: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { fatalError("cannot write \(path)") }
    let bytes = Array(text.utf8)
    _ = write(fd, bytes, bytes.count)
    close(fd)
}

/// Writes a fuzz input as a file of sorted runs at `path`: its first byte
/// odd, the rest sealed first (``sealSortedRunFile(_:)``); even, the rest whole.
/// - Returns: whether it was sealed; nil for an empty input, or a file that cannot be written.
public func writeSortedRunInput(_ data: UnsafePointer<UInt8>, _ size: Int, to path: String) -> Bool? {
    guard size > 0 else { return nil }
    var file = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let sealed = data[0] & 1 == 1
    if sealed { sealSortedRunFile(&file) }
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return nil }
    _ = write(fd, file, file.count)
    close(fd)
    return sealed
}

/// Seals `file` as a writer of a file of sorted runs (`LOG.eventids`,
/// `LOG.idnumbers`) would: its last 68 bytes as a trailer, and the run's
/// index and the blocks it points at, where they lie inside it, each with its
/// CRC-32C, so that a target reaches what lies past the checksums.
public func sealSortedRunFile(_ file: inout [UInt8]) {
    func word(_ at: Int) -> Int {
        Int(truncatingIfNeeded: (0..<8).reduce(UInt64(0)) { $0 | UInt64(file[at + $1]) << (8 * UInt64($1)) })
    }
    func seal(_ start: Int, _ end: Int) {
        let crc = CRC32C.checksum(Array(file[start..<(end - 4)]))
        for k in 0..<4 { file[end - 4 + k] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(k))) }
    }
    let trailer = file.count - 68
    guard trailer >= 0 else { return }
    let runIndex = word(trailer + 48)
    if runIndex >= 0, runIndex + 20 <= trailer {
        let length =
            Int(file[runIndex + 12]) | Int(file[runIndex + 13]) << 8 | Int(file[runIndex + 14]) << 16 | Int(file[runIndex + 15]) << 24
        if runIndex + 20 + length <= trailer { seal(runIndex, runIndex + 20 + length) }
        let blocks = Int(file[runIndex + 8]) | Int(file[runIndex + 9]) << 8
        var at = word(runIndex)
        for _ in 0..<blocks where at >= 0 && at + 4096 <= runIndex {
            seal(at, at + 4096)
            at += 4096
        }
    }
    seal(trailer, file.count)
}
