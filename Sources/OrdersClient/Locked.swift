import Foundation

/// A value behind a lock: what `Mutex` gives, which Apple's systems have
/// only from iOS 18 and macOS 15. `NSLock` reaches back to every iOS a
/// shop app still supports.
final class Locked<Value>: @unchecked Sendable {  // Sendable: every access holds `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
