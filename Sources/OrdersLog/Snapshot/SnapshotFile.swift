import OrdersCore
import OrdersFiles
import OrdersFormat
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a snapshot sits in its file: a header that says which batches it
/// covers and checks the head, then zstd frames, each with its own
/// CRC-32C: the head, the chunks of open carts, the chunks of votes, the
/// product sales (FORMAT.md, "Beside the log: the snapshot"). A fold reads
/// the head, and of the rest only the frames it needs.
enum SnapshotFile {
    static let magic = Array("ORDERSNP".utf8)
    static let version: UInt32 = 1
    /// magic 8, version u32, the point (batch count u64, end seq u64,
    /// events u64, chain u32), the head's frame size u64 and content size
    /// u64, the file's size u64, CRC-32C u32 of the head's frame, CRC-32C
    /// u32 of the 68 bytes before it.
    static let headerSize = 72
    /// The largest frame or content a snapshot may declare: far past any log's, short of what a damaged size could ask for.
    static let largestContent: UInt64 = 1 << 40

    /// Why a snapshot file was passed over.
    struct Unusable: Error, CustomStringConvertible {
        var description: String
    }

    /// A frame of the file being made: a section to compress, or a frame of the snapshot before it, copied.
    enum Part {
        case section(Snapshot.Section)
        case copied(SnapshotDirectory.Frame, [UInt8])
    }

    /// The file's bytes for `snapshot`, in pieces, one after the other (``write(_:at:)``).
    static func bytes(of snapshot: Snapshot) throws -> [[UInt8]] {
        let sections = snapshot.encodedSections()
        return try bytes(
            of: snapshot, carts: sections.carts.map(Part.section), votes: sections.votes.map(Part.section),
            products: sections.products.map(Part.section))
    }

    /// The file's bytes for `snapshot`'s point, ids and sums, with these
    /// frames after its head, in pieces; `votes` counted in all, if its ledger holds only some.
    static func bytes(of snapshot: Snapshot, carts: [Part], votes: [Part], products: [Part], voteCount: Int? = nil) throws -> [[UInt8]] {
        var compressor = try ZstdCompressor(level: 3, checksum: false)
        // Each frame a piece of its own: a snapshot taken from the one before copies most of its frames, and
        // joining them all in one array copied every byte once more, the larger part of its time.
        var body: [[UInt8]] = []
        var bodySize = 0
        func frame(_ part: Part) throws -> SnapshotDirectory.Frame {
            switch part {
            case .copied(let frame, let bytes):
                body.append(bytes)
                bodySize += bytes.count
                return frame
            case .section(let section):
                var compressed: [UInt8] = []
                try section.bytes.withUnsafeBytes { _ = try compressor.compressFrame($0, appendingTo: &compressed) }
                body.append(compressed)
                bodySize += compressed.count
                return SnapshotDirectory.Frame(
                    first: section.first, last: section.last, count: section.count, frameSize: compressed.count,
                    contentSize: section.bytes.count, crc: CRC32C.checksum(compressed))
            }
        }
        var directory = SnapshotDirectory()
        directory.carts = try carts.map(frame)
        directory.votes = try votes.map(frame)
        directory.products = try products.map(frame)
        let head = snapshot.encodedHead(directory: directory, votes: voteCount)
        var headFrame: [UInt8] = []
        try head.withUnsafeBytes { _ = try compressor.compressFrame($0, appendingTo: &headFrame) }
        var w = ByteWriter(capacity: headerSize + headFrame.count)
        w.write(contentsOf: magic)
        w.write(littleEndian: version)
        w.write(littleEndian: UInt64(snapshot.point.batchCount))
        w.write(seq: snapshot.point.endSeq)
        w.write(littleEndian: UInt64(snapshot.point.events))
        w.write(littleEndian: snapshot.point.chain)
        w.write(littleEndian: UInt64(headFrame.count))
        w.write(littleEndian: UInt64(head.count))
        w.write(littleEndian: UInt64(headerSize + headFrame.count + bodySize))
        w.write(littleEndian: CRC32C.checksum(headFrame))
        w.write(littleEndian: CRC32C.checksum(w.bytes))
        w.write(contentsOf: headFrame)
        return [w.bytes] + body
    }

    /// The fields of a sound header.
    struct Header {
        var point: SnapshotPoint
        var headFrameSize: Int
        var headSize: Int
        var fileSize: Int
        var headCRC: UInt32
    }

    /// The header at the start of `bytes`, of a file of `fileSize` bytes.
    static func header(_ bytes: UnsafeRawBufferPointer, fileSize: Int) throws(Unusable) -> Header {
        guard bytes.count >= headerSize, magic.elementsEqual(bytes[0..<8]) else { throw Unusable(description: "it is not a snapshot") }
        let u64 = { (offset: Int) in bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian }
        let u32 = { (offset: Int) in bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian }
        guard u32(68) == CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<68])) else {
            throw Unusable(description: "its header's checksum does not match")
        }
        guard u32(8) == version else { throw Unusable(description: "it is of version \(u32(8)), not \(version)") }
        let (batchCount, endSeq, events) = (u64(12), Seq(truncatingIfNeeded: u64(20)), u64(28))
        let (headFrameSize, headSize, size) = (u64(40), u64(48), u64(56))
        guard size == UInt64(fileSize), headFrameSize <= size - UInt64(headerSize), headSize <= largestContent,
            batchCount <= UInt64(Int32.max), endSeq >= 1, events <= UInt64(Int64.max)
        else { throw Unusable(description: "its header's sizes or counts are out of range (the file is \(fileSize) bytes)") }
        let point = SnapshotPoint(batchCount: Int(batchCount), endSeq: endSeq, events: Int64(events), chain: u32(36))
        return Header(point: point, headFrameSize: Int(headFrameSize), headSize: Int(headSize), fileSize: Int(size), headCRC: u32(64))
    }

    /// A snapshot file whose header and head hold, open, its other frames
    /// read as they are asked for. The file stays open, so that a snapshot
    /// renamed over it meanwhile changes nothing read.
    final class Opened: @unchecked Sendable {  // Read by one thread at a time; nothing changes after init.
        let point: SnapshotPoint
        let head: SnapshotHead
        private let file: FileDescriptor
        private let path: String
        /// Where each frame of the directory starts, in its order.
        private let offsets: [Int]

        /// Takes `file`; the caller closes it if this throws (every throw comes before `offsets` is set).
        init(file: FileDescriptor, path: String) throws(Unusable) {
            self.file = file
            self.path = path
            let header: Header
            do {
                let size = Int(try file.size(path: path))
                guard size >= SnapshotFile.headerSize else { throw Unusable(description: "it is \(size) bytes, shorter than a header") }
                var bytes = [UInt8](repeating: 0, count: SnapshotFile.headerSize)
                try bytes.withUnsafeMutableBytes { try file.readAll(at: 0, into: $0, path: path) }
                header = try bytes.withUnsafeBytes { try SnapshotFile.header($0, fileSize: size) }
            } catch let unusable as Unusable {
                throw unusable
            } catch {
                throw Unusable(description: "it could not be read: \(error)")
            }
            point = header.point
            let frame = SnapshotDirectory.Frame(frameSize: header.headFrameSize, contentSize: header.headSize, crc: header.headCRC)
            head = try Self.read(frame, at: SnapshotFile.headerSize, of: file, path: path, what: "its head") {
                bytes throws(ByteReader.Malformed) in
                try SnapshotHead.decode(bytes, at: header.point)
            }
            var offsets: [Int] = []
            var offset = SnapshotFile.headerSize + header.headFrameSize
            for frame in head.directory.frames {
                offsets.append(offset)
                offset += frame.frameSize
            }
            guard offset == header.fileSize else {
                throw Unusable(description: "its frames end at byte \(offset), and the file at \(header.fileSize)")
            }
            self.offsets = offsets
        }

        deinit { try? file.close() }

        /// The snapshot: its ledger read for the carts and voters of
        /// `keeping` alone, if given (only the chunks that hold them are
        /// read); its product sales only if `productSales`.
        func snapshot(keeping: TouchedIDs? = nil, productSales: Bool = true) throws(Unusable) -> Snapshot {
            var ledger = head.ledger
            ledger.partial = keeping != nil
            if let keeping {
                for word in ledger.closedCarts.indices {
                    ledger.closedCarts[word] &= word < keeping.carts.words.count ? keeping.carts.words[word] : 0
                }
            }
            let directory = head.directory
            for (i, frame) in directory.carts.enumerated() where keeping.map({ Self.any(of: $0.carts, in: frame) }) ?? true {
                try Self.read(frame, at: offsets[i], of: file, path: path, what: "a chunk of open carts") {
                    bytes throws(ByteReader.Malformed) in
                    try SnapshotHead.decodeCarts(bytes, of: frame, into: &ledger, keeping: keeping)
                }
            }
            for (i, frame) in directory.votes.enumerated() where keeping.map({ Self.any(of: $0.voters, in: frame) }) ?? true {
                let offset = offsets[directory.carts.count + i]
                try Self.read(frame, at: offset, of: file, path: path, what: "a chunk of votes") { bytes throws(ByteReader.Malformed) in
                    try SnapshotHead.decodeVotes(bytes, of: frame, into: &ledger, keeping: keeping)
                }
            }
            var keys: [ProductSales.Key] = [], totals: [ProductSales.Totals] = []
            if productSales {
                for i in directory.products.indices { try readProducts(i, into: &keys, &totals) }
            }
            let fold = FoldState(ledger: ledger, reports: head.reports, productSales: keys, productTotals: totals)
            return Snapshot(point: point, idCounts: head.idCounts, ids: head.ids, fold: fold)
        }

        /// Whether `set` has a member from `frame.first` to `frame.last`.
        static func any(of set: BitSet, in frame: SnapshotDirectory.Frame) -> Bool {
            frame.last >= frame.first && set.containsAny(of: frame.first...frame.last)
        }

        /// Adds the product sales of chunk `index` to `keys` and `totals`.
        func readProducts(_ index: Int, into keys: inout [ProductSales.Key], _ totals: inout [ProductSales.Totals]) throws(Unusable) {
            let frame = head.directory.products[index], idCounts = head.idCounts
            let offset = offsets[head.directory.carts.count + head.directory.votes.count + index]
            try Self.read(frame, at: offset, of: file, path: path, what: "a chunk of product sales") { bytes throws(ByteReader.Malformed) in
                try SnapshotHead.decodeProducts(bytes, of: frame, idCounts: idCounts, into: &keys, &totals)
            }
        }

        /// The bytes of frame `index` of the directory (in file order), as they are, with its entry.
        func copied(_ index: Int) throws(Unusable) -> Part {
            let frame = head.directory.frames[index]
            do {
                let bytes = try [UInt8](unsafeUninitializedCapacity: frame.frameSize) { buffer, count in
                    try file.readAll(at: Int64(offsets[index]), into: UnsafeMutableRawBufferPointer(buffer), path: path)
                    count = buffer.count
                }
                guard CRC32C.checksum(bytes) == frame.crc else { throw Unusable(description: "a chunk's checksum does not match") }
                return .copied(frame, bytes)
            } catch let unusable as Unusable {
                throw unusable
            } catch {
                throw Unusable(description: "a chunk could not be read: \(error)")
            }
        }

        /// Reads `frame` at `offset`, checks its CRC, decompresses it, and decodes it with `decode`.
        private static func read<T>(
            _ frame: SnapshotDirectory.Frame, at offset: Int, of file: FileDescriptor, path: String, what: String,
            _ decode: (UnsafeRawBufferPointer) throws(ByteReader.Malformed) -> T
        ) throws(Unusable) -> T {
            guard frame.contentSize <= Int(SnapshotFile.largestContent) else { throw Unusable(description: "\(what) is too large") }
            do {
                let compressed = try [UInt8](unsafeUninitializedCapacity: frame.frameSize) { buffer, count in
                    try file.readAll(at: Int64(offset), into: UnsafeMutableRawBufferPointer(buffer), path: path)
                    count = buffer.count
                }
                guard CRC32C.checksum(compressed) == frame.crc else { throw Unusable(description: "\(what): its checksum does not match") }
                var decompressor = try ZstdDecompressor()
                // Not zeroed first: the frame fills every byte, or fails.
                let content = try [UInt8](unsafeUninitializedCapacity: frame.contentSize) { buffer, count in
                    try compressed.withUnsafeBytes { try decompressor.decompressFrame($0, into: UnsafeMutableRawBufferPointer(buffer)) }
                    count = buffer.count
                }
                return try content.withUnsafeBytes { bytes throws(ByteReader.Malformed) in try decode(bytes) }
            } catch let unusable as Unusable {
                throw unusable
            } catch let malformed as ByteReader.Malformed {
                throw Unusable(description: "\(what) is malformed at byte \(malformed.position): \(malformed.reason)")
            } catch {
                throw Unusable(description: "\(what) could not be read: \(error)")
            }
        }
    }

    /// The snapshot file at `path` (beside a log, `Snapshot.path(of:)`), opened: nil if there is none;
    /// ``Unusable`` if the file is there but is not one.
    static func open(at path: String) throws(Unusable) -> Opened? {
        guard access(path, F_OK) == 0 else { return nil }
        let file: FileDescriptor
        do {
            file = try FileDescriptor.openInput(path)
        } catch {
            throw Unusable(description: "it could not be opened: \(error)")
        }
        do {
            return try Opened(file: file, path: path)
        } catch {
            // An init that throws has not set every property: no deinit closes the file.
            try? file.close()
            throw error
        }
    }

    /// The snapshot beside `log`, whole: nil if there is none; ``Unusable`` if the file is there but is not one.
    static func read(besideLog log: String) throws(Unusable) -> Snapshot? {
        try open(at: Snapshot.path(of: log))?.snapshot()
    }

    /// The point of the snapshot beside `log`, read from its header alone;
    /// nil if there is none or its header is not sound. Whether it is the
    /// log's, and its content sound, is known only when it is read.
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
        try write(bytes(of: snapshot), at: Snapshot.path(of: log))
    }

    /// Writes the file whose bytes are `pieces`, one after the other, at
    /// `path` (beside a log, or a part's share of a dataset's snapshot), as ``write(_:besideLog:)`` does.
    /// - Returns: the file's size.
    @discardableResult
    static func write(_ pieces: [[UInt8]], at path: String) throws -> Int {
        // One temporary name, so that a writer killed mid-write leaves nothing the next does not replace.
        try replaceFile(path, withPieces: pieces)
        return pieces.reduce(0) { $0 + $1.count }
    }
}
