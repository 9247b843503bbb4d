import OrdersCore
import OrdersFormat

/// Sums, currencies and daily sales as bytes, as a snapshot and a part's
/// sums both write them (FORMAT.md, DATASETS.md): a sum is a byte (1 if it
/// overflowed 64 bits) and its value, zigzag; a currency its three letters,
/// a u32; a day's sales its day (zigzag), currency, and three sums; a
/// tally's votes, the numbers of their poll and candidate, and the count.
extension ByteWriter {
    package mutating func write(_ sum: ExactSum) {
        write(sum.overflowed ? 1 : 0)
        write(zigzag: sum.value)
    }

    package mutating func write(_ currency: Currency) { write(littleEndian: currency.rawValue) }

    /// Every day's sales: their count, then each.
    package mutating func write(_ daily: DailySales) {
        write(varint: UInt64(daily.totals.count))
        for (key, totals) in daily.totals.entries {
            write(zigzag: key.day)
            write(key.currency)
            for sum in [totals.orders, totals.units, totals.revenue] { write(sum) }
        }
    }

    /// Every candidate's votes in a poll: their count, then each (poll and candidate by number, votes).
    package mutating func write(_ tally: VoteTally) {
        write(varint: UInt64(tally.votes.count))
        for (key, votes) in tally.votes.entries {
            write(varint: UInt64(key.poll.rawValue))
            write(varint: UInt64(key.candidate.rawValue))
            write(varint: UInt64(votes))
        }
    }
}

extension ByteReader {
    package mutating func readSum() throws(Malformed) -> ExactSum {
        let start = position
        let flag = try read(littleEndian: UInt8.self)
        guard flag <= 1 else { throw Malformed(position: start, reason: "a sum's flag is neither 0 nor 1") }
        var sum = ExactSum(zigzag(try readVarint()))
        sum.overflowed = flag == 1
        return sum
    }

    package mutating func readCurrency() throws(Malformed) -> Currency {
        let start = position
        guard let currency = Currency(rawValue: try read(littleEndian: UInt32.self)) else {
            throw Malformed(position: start, reason: "a currency is not three letters")
        }
        return currency
    }

    /// ``ByteWriter/write(_:)-(DailySales)``'s sales, added to `daily`; each day must be in `days`.
    package mutating func readDailySales(into daily: inout DailySales, days: ClosedRange<Int64> = .min ... .max) throws(Malformed) {
        for _ in 0..<(try readCount(atMost: remaining, "the count of daily entries")) {
            let start = position
            let day = zigzag(try readVarint())
            guard days.contains(day) else { throw Malformed(position: start, reason: "a day \(day) is past any date's") }
            let currency = try readCurrency()
            var totals = SalesTotals()
            totals.orders = try readSum()
            totals.units = try readSum()
            totals.revenue = try readSum()
            daily.totals[DailySales.Key(day: day, currency: currency), default: SalesTotals()].merge(totals)
        }
    }
}
