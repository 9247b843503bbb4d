import OrdersFormat

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `body` on a new thread, to be joined or detached by the caller.
func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t {
    /// The body, in a class so that pthreads can carry it as a pointer to the new thread.
    final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    var thread = pthread_t()
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    let status = pthread_create(
        &thread, nil,
        { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
    precondition(status == 0, "pthread_create failed: \(status)")
    return thread
}

/// Runs `body` on a new thread that nobody joins: it ends when `body` returns.
package func startDetachedThread(_ body: @escaping @Sendable () -> Void) {
    pthread_detach(startThread(body))
}
