import OrdersFiles
import OrdersFormat
import SystemPackage

/// A log's bytes read for a scan of its frame headers a window at a time:
/// a server writes a batch and a commit record for every group of appends,
/// a few hundred bytes each, and two reads a frame made opening a log that
/// served for a day cost tens of thousands of system calls.
///
/// The window starts at a page and doubles, up to ``largest``, while the
/// scan reads on from its end (frames packed close); a scan that skips past
/// it (a large batch's payload) starts again from a page, so that a log of
/// large batches reads about a page a batch.
struct FrameWindow: ~Copyable {
    static let smallest = 4096
    static let largest = 256 << 10

    private let file: FileDescriptor
    private let path: String
    private var bytes: UnsafeMutableRawBufferPointer
    /// The file offset of `bytes[0]`, and how many of them were read.
    private var start: Int64 = 0
    private var count = 0
    private var size = smallest

    init(_ file: FileDescriptor, path: String) {
        self.file = file
        self.path = path
        bytes = .allocate(byteCount: Self.largest, alignment: 16)
    }

    deinit { bytes.deallocate() }

    /// Copies the `buffer.count` bytes at `offset` into `buffer`.
    /// - Throws: if the file ends before them.
    mutating func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(FileError) {
        if offset < start || offset + Int64(buffer.count) > start + Int64(count) {
            guard buffer.count <= Self.largest else { return try file.readAll(at: offset, into: buffer, path: path) }
            let readingOn = offset >= start && offset <= start + Int64(count)
            size = readingOn ? min(2 * size, Self.largest) : Self.smallest
            try fill(at: offset, needing: max(buffer.count, 1))
        }
        let from = Int(offset - start)
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[from..<from + buffer.count]))
    }

    /// Reads up to `size` bytes at `offset`: fewer where the file ends (a
    /// writer may have cut its uncommitted tail meanwhile), but `needed` at least.
    private mutating func fill(at offset: Int64, needing needed: Int) throws(FileError) {
        start = offset
        count = 0
        while count < size {
            let n: Int
            do {
                n = try file.read(
                    fromAbsoluteOffset: offset + Int64(count), into: UnsafeMutableRawBufferPointer(rebasing: bytes[count..<size]))
            } catch {
                throw FileError(path: path, operation: "reading", reason: "\(error)")
            }
            if n == 0 { break }
            count += n
        }
        if count < needed {
            throw FileError(path: path, operation: "reading", reason: "the file ended early (it shrank while being read?)")
        }
    }
}
