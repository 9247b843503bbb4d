import OrdersCore

/// `orders tally`: each poll's candidates ranked by votes.
public struct TallyReport {
    public var rows: [VoteTally.Row]

    /// - Parameter poll: only this poll, if given.
    public init(_ tally: VoteTally, ids: Identifiers, poll: [UInt8]? = nil) {
        rows = tally.rows(ids: ids).filter { poll == nil || $0.poll == poll! }
    }

    /// The rows grouped by poll, in order.
    private var polls: [(poll: [UInt8], rows: [VoteTally.Row], total: Int64)] {
        var out: [([UInt8], [VoteTally.Row], Int64)] = []
        for row in rows {
            if out.last?.0 == row.poll {
                out[out.count - 1].1.append(row)
                out[out.count - 1].2 += row.votes
            } else {
                out.append((row.poll, [row], row.votes))
            }
        }
        return out
    }

    /// `poll,candidate,votes`, sorted by poll, votes descending, candidate.
    public func csv() -> [UInt8] {
        var csv = CSV(header: ["poll", "candidate", "votes"])
        for row in rows { csv.row([.bytes(row.poll), .bytes(row.candidate), .integer(row.votes)]) }
        return csv.bytes
    }

    public func json() -> [UInt8] {
        var object = JSONObject()
        object.array(
            "polls",
            polls.map { poll in
                var o = JSONObject()
                o.string("poll", bytes: poll.poll)
                o.integer("votes", poll.total)
                o.array(
                    "ranking",
                    poll.rows.map { row in
                        var c = JSONObject()
                        c.string("candidate", bytes: row.candidate)
                        c.integer("votes", row.votes)
                        return c
                    })
                return o
            })
        return object.closed + [0x0A]
    }

    /// Each poll as a ranking with each candidate's share of its votes, to a
    /// tenth of a percent, the shares of a poll adding up to 100.0% (``Shares``).
    /// - Parameter limit: the most candidates shown a poll, then a line says how many were left out; nil for all.
    public func table(limit: Int? = nil) -> String {
        var out = ""
        for poll in polls {
            out += "poll \(String(identifier: poll.poll)): \(Thousands.grouped(poll.total)) \(poll.total == 1 ? "vote" : "votes")\n"
            var table = TextTable([.init("rank", .right), .init("candidate"), .init("votes", .right), .init("share", .right)])
            let shares = Shares.tenthsOfPercent(poll.rows.map(\.votes))
            let shown = min(poll.rows.count, limit ?? poll.rows.count)
            for (i, row) in poll.rows.prefix(shown).enumerated() {
                table.row([
                    "\(i + 1)", String(identifier: row.candidate), Thousands.grouped(row.votes), Shares.formatted(tenths: shares[i]),
                ])
            }
            out += table.rendered + (TextTable.leftOut(shown: shown, of: poll.rows.count, what: "candidates") ?? "") + "\n"
        }
        guard !out.isEmpty else { return "no votes\n" }
        // Not `dropLast()`, which counts every character of the text first (a third of a table of 400,000 polls).
        out.removeLast()
        return out
    }
}
