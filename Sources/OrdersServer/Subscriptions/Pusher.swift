import Foundation
import Logging
import OrdersClient
import OrdersCore

/// A pushed subscription's one consumer (EVENTS.md, section 6): it leases,
/// POSTs the lease's lines to the receiver, and acknowledges them on a
/// `2xx`. Anything else ends the lease and waits, backing off
/// exponentially, or as a `429` or `503` says with `Retry-After`.
///
/// A receiver that cannot be reached, times out, or answers a `5xx`, `408`
/// or `429` judged no event: the handout is not counted, so that a receiver
/// that is down or failing for an hour gets every event once it is back,
/// none parked. Another `4xx` refuses the events: the handout counts, and
/// the next pushes take one event each until one is taken, so that only
/// an event refused `attempts` times is parked, not those leased beside it.
struct Pusher: Sendable {
    let subscription: String
    let url: String
    let lease: Int
    let logger: Logger

    /// The most a lease pushes, and how long the first wait after a failure is, and the longest.
    static let most = 100
    static let firstWait = Duration.milliseconds(500)
    static let longestWait = Duration.seconds(30)

    func run(on subscriptions: Subscriptions) async {
        guard let target = URL(string: url), var base = URLComponents(url: target, resolvingAgainstBaseURL: false) else { return }
        let query = base.query.map { "?" + $0 } ?? ""
        base.query = nil
        // Within the lease, so that a receiver that times out is let go of before the lease's expiry counts a handout.
        let http = transport(for: base.url ?? target, timeout: .milliseconds(max(500, lease * 800)))
        var wait = Self.firstWait
        var most = Self.most
        while !Task.isCancelled {
            let leased: SubscriptionCursor.Lease?
            do {
                leased = try await subscriptions.lease(subscription, most: most, wait: .seconds(30))
            } catch {
                return
            }
            guard let leased else { continue }
            let seqs = leased.lines.map(\.seq)
            let headers = [
                "Content-Type": "application/x-ndjson", "Subscription": subscription,
                "Idempotency-Key": "\(subscription):\(seqs.first!)-\(seqs.last!)",
            ]
            var failure: String
            var asked: Duration?
            do {
                let answer = try await http.send("POST", query, body: leased.lines.flatMap(\.line), headers: headers)
                if (200..<300).contains(answer.status) {
                    _ = try? await subscriptions.acknowledge(seqs, of: subscription)
                    wait = Self.firstWait
                    most = Self.most
                    continue
                }
                failure = "the receiver answered \(answer.status)"
                if (400..<500).contains(answer.status) && answer.status != 408 && answer.status != 429 {
                    _ = try? await subscriptions.nack(seqs, of: subscription, park: false)
                    most = 1
                } else {
                    await subscriptions.release(seqs, of: subscription)
                    if answer.status == 429 || answer.status == 503 { asked = answer.headers["retry-after"].flatMap(Self.seconds) }
                }
            } catch {
                failure = "the receiver could not be reached: \(error)"
                await subscriptions.release(seqs, of: subscription)
            }
            let pause = asked ?? wait
            logger.warning(
                "a push failed; trying again",
                metadata: [
                    "subscription": "\(subscription)", "error": "\(failure)", "seqs": "\(seqs.first!)-\(seqs.last!)", "wait": "\(pause)",
                ])
            wait = min(wait * 2, Self.longestWait)
            try? await Task.sleep(for: pause)
        }
    }

    /// A `Retry-After` of delay-seconds (RFC 9110); a date is left to the backoff.
    private static func seconds(_ value: String) -> Duration? {
        Int(value.trimmingCharacters(in: .whitespaces)).map { .seconds(min(max($0, 0), 3600)) }
    }
}
