#if canImport(UIKit) && !os(watchOS)
import UIKit

extension OrdersClient {
    /// Flushes the outbox each time the app enters the background, inside a
    /// background task (`beginBackgroundTask`): the system grants it some
    /// 30 seconds, and what is not delivered by then, or by `timeout`, stays
    /// in the outbox for the next start. Call it once at launch, and keep the
    /// observer it returns for as long as the flushes should happen. For
    /// delivery while the app is not running, schedule a `BGAppRefreshTask`
    /// that calls ``flush(timeout:)`` (docs/client.md).
    @MainActor
    public func flushOnEnteringBackground(timeout: Duration = .seconds(25)) -> any NSObjectProtocol {
        NotificationCenter.default.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: .main) {
            [weak self] _ in
            MainActor.assumeIsolated { self?.flushInBackgroundTask(timeout: timeout) }
        }
    }

    @MainActor
    private func flushInBackgroundTask(timeout: Duration) {
        let background = BackgroundTask()
        let flush = Task { _ = try? await self.flush(timeout: timeout) }
        background.begin { flush.cancel() }
        Task { @MainActor in
            _ = await flush.result
            background.end()
        }
    }
}

/// One background task, ended once: when its flush returns, or when the system says its time is up.
@MainActor
private final class BackgroundTask {
    private var identifier = UIBackgroundTaskIdentifier.invalid

    func begin(expiring: @escaping @Sendable () -> Void) {
        identifier = UIApplication.shared.beginBackgroundTask(withName: "orders flush") { [self] in
            expiring()
            MainActor.assumeIsolated { self.end() }
        }
    }

    func end() {
        guard identifier != .invalid else { return }
        UIApplication.shared.endBackgroundTask(identifier)
        identifier = .invalid
    }
}
#endif
