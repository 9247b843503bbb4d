import OrdersLog

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files being written that are worth nothing unfinished: removed if the
/// command fails, or is interrupted (SIGINT, SIGTERM, SIGHUP), before they
/// are finished, as `zstd` removes its partial output. `bench`'s scratch
/// logs can be hundreds of MB in a temporary directory; `generate`'s output
/// is whatever the user named.
///
/// One set at a time. A signal the process was started ignoring (as a shell
/// starts a background job ignoring SIGINT) stays ignored. The handler only
/// unlinks, removes the directory if asked, and dies of the signal as it
/// would have: all safe in a signal handler.
enum PartialOutput {
    private static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// `path` (in the directory `scratch`, removed with it, if given) is
    /// being written: remove it, and what a log's writer keeps beside it
    /// (its checkpoint and index), should an interrupt come.
    static func begin(_ path: String, scratchDirectory scratch: String? = nil) {
        begin([path], scratchDirectory: scratch)
    }

    /// Each of `paths` (in the directory `scratch`, if given) is being
    /// written, or soon will be: as ``begin(_:scratchDirectory:)`` for each.
    static func begin(_ paths: [String], scratchDirectory scratch: String? = nil) {
        let names = paths.flatMap { [$0] + LogIndex.filesBeside($0) }
        let files = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: names.count)
        for (i, name) in names.enumerated() { (files + i).initialize(to: strdup(name)) }
        pendingFiles = files
        pendingCount = names.count
        pendingDirectory = scratch.flatMap { strdup($0) }
        // Ignoring for a moment, never handling a signal that was ignored: the C idiom.
        for signal in signals where !isIgnore(Glibc.signal(signal, SIG_IGN)) {
            Glibc.signal(signal, removePartialOutput)
        }
    }

    /// The files are complete: keep them.
    static func finish() {
        for signal in signals where !isIgnore(Glibc.signal(signal, SIG_IGN)) {
            Glibc.signal(signal, SIG_DFL)
        }
        if let files = pendingFiles {
            for i in 0..<pendingCount { free(files[i]) }
            files.deallocate()
        }
        free(pendingDirectory)
        pendingFiles = nil
        pendingCount = 0
        pendingDirectory = nil
    }

    /// The files will not be finished, or are not wanted: remove them (and their directory).
    static func abandon() {
        removePending()
        finish()
    }

    private static func isIgnore(_ handler: __sighandler_t?) -> Bool {
        unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }
}

// Set before the handler is installed, cleared after it is removed.
nonisolated(unsafe) private var pendingFiles: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
nonisolated(unsafe) private var pendingCount = 0
nonisolated(unsafe) private var pendingDirectory: UnsafeMutablePointer<CChar>?

private func removePartialOutput(_ signal: Int32) {
    removePending()
    Glibc.signal(signal, SIG_DFL)
    raise(signal)
}

/// Unlinks the files and removes their directory, if any: safe in a signal handler.
private func removePending() {
    if let files = pendingFiles {
        for i in 0..<pendingCount { if let file = files[i] { unlink(file) } }
    }
    if let directory = pendingDirectory { rmdir(directory) }
}
