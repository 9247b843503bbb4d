import Logging

extension DeliveryEvent {
    /// Says the event to `logger`, at the level a person watching would want it:
    /// what goes on at debug, what heals by itself at info, what a person must look at above.
    func log(to logger: Logger) {
        switch self {
        case .delivered(let appended, let duplicates, let pending):
            logger.debug(
                "delivered a batch", metadata: ["appended": "\(appended)", "duplicates": "\(duplicates)", "pending": "\(pending)"])
        case .setAside(let rejection):
            var metadata: Logger.Metadata = [
                "number": "\(rejection.number)", "status": "\(rejection.status)", "error": "\(rejection.message)",
            ]
            if let field = rejection.field { metadata["field"] = "\(field)" }
            if let seq = rejection.seq { metadata["seq"] = "\(seq)" }
            logger.warning("the server refused an event; it is set aside in rejected.ndjson", metadata: metadata)
        case .retrying(let delay, let reason, let status):
            logger.info("delivery retries", metadata: Self.waiting(delay, reason, status))
        case .tokenRefused(let status, let message):
            logger.warning("the server refused the token", metadata: ["status": "\(status)", "error": "\(message)"])
        case .stopped(let reason):
            logger.error("delivery stopped; the outbox keeps its events", metadata: ["reason": "\(reason)"])
        case .offline:
            logger.info("the device is offline; delivery waits for the network")
        case .reconnecting(let delay, let reason, let status):
            logger.info("the live feed reconnects", metadata: Self.waiting(delay, reason, status))
        }
    }

    private static func waiting(_ delay: Duration, _ reason: String, _ status: Int?) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["after": "\(delay)", "reason": "\(reason)"]
        if let status { metadata["status"] = "\(status)" }
        return metadata
    }
}
