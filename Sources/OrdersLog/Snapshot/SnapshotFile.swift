import OrdersCore
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a snapshot sits in its file: a header that says which batches it
/// covers and checks what follows, then one zstd frame of the snapshot's
/// content (FORMAT.md, "Beside the log: the snapshot").
enum SnapshotFile {
    static let magic = Array("ORDERSNP".utf8)
    static let version: UInt32 = 1
    /// magic 8, version u32, the point (batch count u64, end seq u64,
    /// events u64, chain u32), content size u64, frame size u64, CRC-32C
    /// u32 of the frame, CRC-32C u32 of the 60 bytes before it.
    static let headerSize = 64
    /// The largest content a snapshot may declare: far past any log's, short of what a damaged size could ask for.
    static let largestContent: UInt64 = 1 << 40

    /// Why a snapshot file was passed over.
    struct Unusable: Error, CustomStringConvertible {
        var description: String
    }

    /// The file's bytes for `snapshot`.
    static func bytes(of snapshot: Snapshot) throws -> [UInt8] {
        let content = snapshot.encoded()
        var frame: [UInt8] = []
        var compressor = try ZstdCompressor(level: 3, checksum: false)
        try content.withUnsafeBytes { _ = try compressor.compressFrame($0, appendingTo: &frame) }
        var w = ByteWriter(capacity: headerSize + frame.count)
        w.write(contentsOf: magic)
        w.write(littleEndian: version)
        w.write(littleEndian: UInt64(snapshot.point.batchCount))
        w.write(seq: snapshot.point.endSeq)
        w.write(littleEndian: UInt64(snapshot.point.events))
        w.write(littleEndian: snapshot.point.chain)
        w.write(littleEndian: UInt64(content.count))
        w.write(littleEndian: UInt64(frame.count))
        w.write(littleEndian: CRC32C.checksum(frame))
        w.write(littleEndian: CRC32C.checksum(w.bytes))
        w.write(contentsOf: frame)
        return w.bytes
    }

    /// The snapshot the file `bytes` holds.
    /// - Throws: ``Unusable``, saying why, for any file that is not one whole.
    static func snapshot(in bytes: [UInt8]) throws(Unusable) -> Snapshot {
        do {
            return try bytes.withUnsafeBytes { try snapshot(inFile: $0) }
        } catch let unusable as Unusable {
            throw unusable
        } catch {
            throw Unusable(description: "\(error)")
        }
    }

    private static func snapshot(inFile file: UnsafeRawBufferPointer) throws(Unusable) -> Snapshot {
        let (point, contentSize, frameCRC) = try header(file)
        let frame = UnsafeRawBufferPointer(rebasing: file[headerSize...])
        guard CRC32C.checksum(frame) == frameCRC else { throw Unusable(description: "its content's checksum does not match") }
        do {
            var decompressor = try ZstdDecompressor()
            // Not zeroed first: the frame fills every byte, or fails.
            let content = try [UInt8](unsafeUninitializedCapacity: Int(contentSize)) { buffer, count in
                try decompressor.decompressFrame(frame, into: UnsafeMutableRawBufferPointer(buffer))
                count = buffer.count
            }
            return try content.withUnsafeBytes { bytes throws(ByteReader.Malformed) in try Snapshot.decode(bytes, at: point) }
        } catch let malformed as ByteReader.Malformed {
            throw Unusable(description: "its content is malformed at byte \(malformed.position) of \(contentSize): \(malformed.reason)")
        } catch {
            throw Unusable(description: "its content does not decompress: \(error)")
        }
    }

    /// The point, content size and frame checksum of a sound header at the start of `file`, whose size it matches.
    static func header(_ file: UnsafeRawBufferPointer, fileSize: Int? = nil) throws(Unusable) -> (SnapshotPoint, UInt64, UInt32) {
        let fileSize = fileSize ?? file.count
        guard file.count >= headerSize, magic.elementsEqual(file[0..<8]) else { throw Unusable(description: "it is not a snapshot") }
        let u64 = { (offset: Int) in file.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian }
        let u32 = { (offset: Int) in file.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian }
        guard u32(60) == CRC32C.checksum(UnsafeRawBufferPointer(rebasing: file[0..<60])) else {
            throw Unusable(description: "its header's checksum does not match")
        }
        guard u32(8) == version else { throw Unusable(description: "it is of version \(u32(8)), not \(version)") }
        let (batchCount, endSeq, events, contentSize, frameSize) = (u64(12), Seq(truncatingIfNeeded: u64(20)), u64(28), u64(40), u64(48))
        guard frameSize == UInt64(fileSize - headerSize), contentSize <= largestContent, batchCount <= UInt64(Int32.max), endSeq >= 1,
            events <= UInt64(Int64.max)
        else { throw Unusable(description: "its header's sizes or counts are out of range (the file is \(fileSize) bytes)") }
        return (SnapshotPoint(batchCount: Int(batchCount), endSeq: endSeq, events: Int64(events), chain: u32(36)), contentSize, u32(56))
    }

    /// The snapshot beside `log`: nil if there is none; ``Unusable`` if the file is there but is not one.
    static func read(besideLog log: String) throws(Unusable) -> Snapshot? {
        let path = Snapshot.path(of: log)
        guard access(path, F_OK) == 0 else { return nil }
        let bytes: [UInt8]
        do {
            bytes = try FileDescriptor.readWhole(path)
        } catch {
            throw Unusable(description: "it could not be read: \(error)")
        }
        return try snapshot(in: bytes)
    }

    /// The point of the snapshot beside `log`, read from its header alone;
    /// nil if there is none or its header is not sound. Whether it is the
    /// log's, and its content sound, is known only when it is read whole.
    static func point(besideLog log: String) -> SnapshotPoint? {
        guard let file = try? FileDescriptor.openInput(Snapshot.path(of: log)) else { return nil }
        defer { try? file.close() }
        var header = [UInt8](repeating: 0, count: headerSize)
        guard (try? header.withUnsafeMutableBytes({ try file.read(fromAbsoluteOffset: 0, into: $0) })) == headerSize,
            let size = try? file.size(path: log)
        else { return nil }
        return header.withUnsafeBytes { bytes in
            guard let (point, _, _) = try? self.header(bytes, fileSize: Int(size)) else { return nil }
            return point
        }
    }

    /// Writes `snapshot` beside `log` so that a crash leaves the old file or
    /// the new one whole, never a mix (``DatasetFiles/replace(_:with:temporary:)``, through `LOG.snapshot.tmp`).
    /// - Returns: the file's size.
    static func write(_ snapshot: Snapshot, besideLog log: String) throws -> Int {
        let bytes = try bytes(of: snapshot)
        // One temporary name, so that a writer killed mid-write leaves nothing the next does not replace.
        try DatasetFiles.replace(Snapshot.path(of: log), with: bytes)
        return bytes.count
    }
}
