#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `body` on a new thread, to be joined or detached by the caller.
func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t {
    final class Box: @unchecked Sendable {  // Handed to exactly one thread.
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var thread = pthread_t()
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    let status = pthread_create(
        &thread, nil,
        { context in
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            box.body()
            return nil
        }, context)
    precondition(status == 0, "pthread_create failed: \(status)")
    return thread
}
