#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import OrdersLog

/// A file being written that is worth nothing unfinished: removed if the
/// command fails, or is interrupted (SIGINT, SIGTERM, SIGHUP), before it is
/// finished, as `zstd` removes its partial output. `bench`'s scratch log
/// can be hundreds of MB in a temporary directory; `generate`'s output is
/// whatever the user named.
///
/// One at a time. A signal the process was started ignoring (as a shell
/// starts a background job ignoring SIGINT) stays ignored. The handler only
/// unlinks, removes the directory if asked, and dies of the signal as it
/// would have: all safe in a signal handler.
enum PartialOutput {
    private static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// `path` (in the directory `scratch`, removed with it, if given) is
    /// being written: remove it, and its writer checkpoint if it is a log,
    /// should an interrupt come.
    static func begin(_ path: String, scratchDirectory scratch: String? = nil) {
        pendingFile = strdup(path)
        pendingCheckpoint = strdup(WriterCheckpoint.path(of: path))
        pendingDirectory = scratch.flatMap { strdup($0) }
        // Ignoring for a moment, never handling a signal that was ignored: the C idiom.
        for signal in signals where !isIgnore(Glibc.signal(signal, SIG_IGN)) {
            Glibc.signal(signal, removePartialOutput)
        }
    }

    /// The file is complete: keep it.
    static func finish() {
        for signal in signals where !isIgnore(Glibc.signal(signal, SIG_IGN)) {
            Glibc.signal(signal, SIG_DFL)
        }
        free(pendingFile)
        free(pendingCheckpoint)
        free(pendingDirectory)
        pendingFile = nil
        pendingCheckpoint = nil
        pendingDirectory = nil
    }

    /// The file will not be finished, or is not wanted: remove it (and its directory).
    static func abandon() {
        removePending()
        finish()
    }

    private static func isIgnore(_ handler: __sighandler_t?) -> Bool {
        unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }
}

// Set before the handler is installed, cleared after it is removed.
nonisolated(unsafe) private var pendingFile: UnsafeMutablePointer<CChar>?
nonisolated(unsafe) private var pendingCheckpoint: UnsafeMutablePointer<CChar>?
nonisolated(unsafe) private var pendingDirectory: UnsafeMutablePointer<CChar>?

private func removePartialOutput(_ signal: Int32) {
    removePending()
    Glibc.signal(signal, SIG_DFL)
    raise(signal)
}

/// Unlinks the file and removes its directory, if any: safe in a signal handler.
private func removePending() {
    if let file = pendingFile { unlink(file) }
    if let file = pendingCheckpoint { unlink(file) }
    if let directory = pendingDirectory { rmdir(directory) }
}
