import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ctrl-C (SIGINT), SIGTERM or SIGHUP during work that must end cleanly,
/// as an import must leave its log as it was: the handler only notes the
/// signal, and the work asks ``check()`` between chunks and throws
/// ``Interrupted``, so that it rolls back on its own thread. A second
/// signal ends the process at once, as it would have.
enum Interruption {
    private static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// Notes the signals from now on; one the process was started ignoring stays ignored.
    /// They are unblocked too: a parent may start its children with them blocked (a test
    /// runner does), and then a handler would never hear them.
    static func watch() {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals where !isIgnore(Glibc.signal(signal, SIG_IGN)) {
            Glibc.signal(signal, noteSignal)
            sigaddset(&set, signal)
        }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// The signals act as they would have again.
    static func stopWatching() {
        for signal in signals where !isIgnore(Glibc.signal(signal, SIG_IGN)) {
            Glibc.signal(signal, SIG_DFL)
        }
    }

    /// Whether a signal came since ``watch()``: for work that stops at its next step rather than rolls back.
    static var happened: Bool { caughtSignal.load(ordering: .relaxed) != 0 }

    /// - Throws: ``Interrupted`` if a signal came since ``watch()``.
    static func check() throws {
        let signal = caughtSignal.load(ordering: .relaxed)
        if signal != 0 { throw Interrupted(signal: signal) }
    }

    private static func isIgnore(_ handler: __sighandler_t?) -> Bool {
        unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }
}

/// The work stopped at a signal: the command says so and exits 128 + the signal, as the shell expects.
struct Interrupted: Error {
    var signal: Int32
}

/// The signal caught, or 0: an atomic store is all the handler does.
private let caughtSignal = Atomic<Int32>(0)

private func noteSignal(_ signal: Int32) {
    caughtSignal.store(signal, ordering: .relaxed)
    Glibc.signal(signal, SIG_DFL)
}
