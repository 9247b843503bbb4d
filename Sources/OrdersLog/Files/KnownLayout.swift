import OrdersFormat

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A log's layout (its committed batches' headers) as a reader last scanned
/// it, kept for the next reader of the same log in the same process: a
/// server's every page of events, resume and audit opens the log, and at
/// 100M events scanning 1,529 batch headers was half of what a page near
/// the head cost.
///
/// Taken only where it still stands: the same file (device and inode), as
/// long at least as its last commit, and that commit record still there,
/// with the same end seq. The next reader then scans only from that commit
/// on. A log cut back (by `orders repair`, or a crash's recovery) or
/// replaced fails one of those, and is scanned whole.
public final class KnownLayout: Sendable {
    private struct Kept: Sendable {
        var device: UInt64
        var inode: UInt64
        var layout: LogLayout
    }

    /// Behind a pthread mutex (``ConditionBox``), which the thread sanitizer follows:
    /// a server's reads run on threads of their own.
    private let kept = ConditionBox<Kept?>(nil)

    public init() {}

    /// The layout kept for the file open as `descriptor`, if it is that file's.
    func layout(of descriptor: Int32) -> LogLayout? {
        guard let (device, inode) = Self.identity(of: descriptor) else { return nil }
        return kept.withLock { kept in kept.flatMap { $0.device == device && $0.inode == inode ? $0.layout : nil } }
    }

    /// Keeps `layout`, scanned from the file open as `descriptor`, in place of the one kept.
    func keep(_ layout: LogLayout, of descriptor: Int32) {
        guard let (device, inode) = Self.identity(of: descriptor) else { return }
        let new = Kept(device: device, inode: inode, layout: layout)
        kept.withLock { $0 = new }
    }

    private static func identity(of descriptor: Int32) -> (UInt64, UInt64)? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return (UInt64(status.st_dev), UInt64(status.st_ino))
    }
}
