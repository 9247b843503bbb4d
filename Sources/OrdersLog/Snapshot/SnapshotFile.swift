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
    /// events u64, chain u32), content size u64, where the content's
    /// product sales start u64, frame size u64, CRC-32C u32 of the frame,
    /// CRC-32C u32 of the 68 bytes before it.
    static let headerSize = 72
    /// The largest content a snapshot may declare: far past any log's, short of what a damaged size could ask for.
    static let largestContent: UInt64 = 1 << 40

    /// Why a snapshot file was passed over.
    struct Unusable: Error, CustomStringConvertible {
        var description: String
    }

    /// The file's bytes for `snapshot`.
    static func bytes(of snapshot: Snapshot) throws -> [UInt8] {
        let (content, productsOffset) = snapshot.encoded()
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
        w.write(littleEndian: UInt64(productsOffset))
        w.write(littleEndian: UInt64(frame.count))
        w.write(littleEndian: CRC32C.checksum(frame))
        w.write(littleEndian: CRC32C.checksum(w.bytes))
        w.write(contentsOf: frame)
        return w.bytes
    }

    /// A snapshot file whose header and checksums hold, its content
    /// decompressed (up to its product sales, unless they are asked for),
    /// to be decoded a section at a time.
    struct Opened: Sendable {
        let point: SnapshotPoint
        let content: [UInt8]
        let productsOffset: Int
        /// Whether `content` holds the product sales.
        let productSales: Bool

        /// The ids of the batches it covers: how many of each role, and the reported roles' spellings.
        func ids() throws(Unusable) -> (idCounts: [Int], ids: Identifiers) {
            try decoding { bytes throws(ByteReader.Malformed) in
                var r = ByteReader(bytes)
                return try Snapshot.decodeIDs(&r)
            }
        }

        /// The whole snapshot, its ledger read for the carts and voters of `keeping` alone, if given.
        func snapshot(keeping: TouchedIDs? = nil) throws(Unusable) -> Snapshot {
            try decoding { bytes throws(ByteReader.Malformed) in
                try Snapshot.decode(bytes, at: point, productsOffset: productsOffset, keeping: keeping, productSales: productSales)
            }
        }

        private func decoding<T>(_ body: (UnsafeRawBufferPointer) throws(ByteReader.Malformed) -> T) throws(Unusable) -> T {
            do {
                return try content.withUnsafeBytes { bytes throws(ByteReader.Malformed) in try body(bytes) }
            } catch let malformed as ByteReader.Malformed {
                throw Unusable(
                    description: "its content is malformed at byte \(malformed.position) of \(content.count): \(malformed.reason)")
            } catch {
                throw Unusable(description: "\(error)")
            }
        }
    }

    /// The snapshot file `bytes`, opened: its header and checksum checked, its content decompressed.
    /// - Parameter productSales: whether to decompress the product sales, the content's last section.
    /// - Throws: ``Unusable``, saying why, for any file that is not one whole.
    static func open(_ bytes: [UInt8], productSales: Bool = true) throws(Unusable) -> Opened {
        do {
            return try bytes.withUnsafeBytes { try open(file: $0, productSales: productSales) }
        } catch let unusable as Unusable {
            throw unusable
        } catch {
            throw Unusable(description: "\(error)")
        }
    }

    private static func open(file: UnsafeRawBufferPointer, productSales: Bool) throws(Unusable) -> Opened {
        let (point, contentSize, productsOffset, frameCRC) = try header(file)
        let frame = UnsafeRawBufferPointer(rebasing: file[headerSize...])
        guard CRC32C.checksum(frame) == frameCRC else { throw Unusable(description: "its content's checksum does not match") }
        let size = Int(productSales ? contentSize : productsOffset)
        do {
            var decompressor = try ZstdDecompressor()
            // Not zeroed first: the frame fills every byte, or fails.
            let content = try [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                if productSales {
                    try decompressor.decompressFrame(frame, into: UnsafeMutableRawBufferPointer(buffer))
                } else {
                    try decompressor.decompressPrefix(frame, into: UnsafeMutableRawBufferPointer(buffer))
                }
                count = buffer.count
            }
            return Opened(point: point, content: content, productsOffset: Int(productsOffset), productSales: productSales)
        } catch {
            throw Unusable(description: "its content does not decompress: \(error)")
        }
    }

    /// The snapshot the file `bytes` holds, whole.
    /// - Throws: ``Unusable``, saying why, for any file that is not one whole.
    static func snapshot(in bytes: [UInt8]) throws(Unusable) -> Snapshot {
        try open(bytes).snapshot()
    }

    /// The point, content size, product sales' offset and frame checksum
    /// of a sound header at the start of `file`, whose size it matches.
    static func header(
        _ file: UnsafeRawBufferPointer, fileSize: Int? = nil
    ) throws(Unusable) -> (point: SnapshotPoint, contentSize: UInt64, productsOffset: UInt64, frameCRC: UInt32) {
        let fileSize = fileSize ?? file.count
        guard file.count >= headerSize, magic.elementsEqual(file[0..<8]) else { throw Unusable(description: "it is not a snapshot") }
        let u64 = { (offset: Int) in file.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian }
        let u32 = { (offset: Int) in file.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian }
        guard u32(68) == CRC32C.checksum(UnsafeRawBufferPointer(rebasing: file[0..<68])) else {
            throw Unusable(description: "its header's checksum does not match")
        }
        guard u32(8) == version else { throw Unusable(description: "it is of version \(u32(8)), not \(version)") }
        let (batchCount, endSeq, events) = (u64(12), Seq(truncatingIfNeeded: u64(20)), u64(28))
        let (contentSize, productsOffset, frameSize) = (u64(40), u64(48), u64(56))
        guard frameSize == UInt64(fileSize - headerSize), contentSize <= largestContent, productsOffset <= contentSize,
            batchCount <= UInt64(Int32.max), endSeq >= 1, events <= UInt64(Int64.max)
        else { throw Unusable(description: "its header's sizes or counts are out of range (the file is \(fileSize) bytes)") }
        let point = SnapshotPoint(batchCount: Int(batchCount), endSeq: endSeq, events: Int64(events), chain: u32(36))
        return (point, contentSize, productsOffset, u32(64))
    }

    /// The snapshot file beside `log`, opened: nil if there is none; ``Unusable`` if the file is there but is not one.
    static func open(besideLog log: String, productSales: Bool = true) throws(Unusable) -> Opened? {
        let path = Snapshot.path(of: log)
        guard access(path, F_OK) == 0 else { return nil }
        let bytes: [UInt8]
        do {
            bytes = try FileDescriptor.readWhole(path)
        } catch {
            throw Unusable(description: "it could not be read: \(error)")
        }
        return try open(bytes, productSales: productSales)
    }

    /// The snapshot beside `log`, whole: nil if there is none; ``Unusable`` if the file is there but is not one.
    static func read(besideLog log: String) throws(Unusable) -> Snapshot? {
        try open(besideLog: log)?.snapshot()
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
        return header.withUnsafeBytes { bytes in (try? self.header(bytes, fileSize: Int(size)))?.point }
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
