import OrdersCore
import OrdersFormat

/// The log's ids as its writer numbers them: the writer numbers each new id
/// on from the log's own numbers, so that readers need no hashing.
///
/// Reading every id of a large log costs more than most imports, so a
/// writer may hold only some of them: those
/// of the streams it appends, looked up in the log (``Known``).
struct LogNumbering {
    /// The log's ids, role by role, at the log's numbers; `known` says which.
    var table = Identifiers()
    /// Which of the log's ids `table` holds.
    private(set) var known: Known
    /// How many of each role's ids in `table` the batches written so far
    /// add; any after them were read ahead by an append.
    private(set) var defined = [Int](repeating: 0, count: Role.allCases.count)
    /// How many of each role's ids are committed; a rollback forgets the rest.
    private var committed = [Int](repeating: 0, count: Role.allCases.count)
    /// Whether `table` was handed over (``handOver()``): the caller's own
    /// tables number every append's ids as the log does, and this keeps none.
    private(set) var numberedByCaller = false

    /// Which of the log's ids a writer holds.
    enum Known {
        /// Every id: the log is new or empty, or they were read.
        case all
        /// None yet: the log has batches, and none of its ids was read or looked up.
        case none
        /// The ids of the streams appended so far, at the log's numbers; the
        /// log's other numbers are placeholders.
        case some
    }

    /// - Parameter logIsEmpty: whether the log has no batch, so that every id of it is known.
    init(logIsEmpty: Bool) {
        known = logIsEmpty ? .all : .none
    }

    /// Takes `all` the log's ids, read from it, as the table, keeping the ids this transaction added.
    mutating func know(all: Identifiers) {
        var all = all
        if known == .none {
            committed = all.counts
            defined = all.counts
        } else {
            for role in Role.allCases {
                for number in committed[role.rawValue]..<table[role].count {
                    table[role].withBytes(of: Symbol(rawValue: UInt32(number))) { _ = all[role].define(number, $0) }
                }
            }
        }
        table = all
        known = .all
    }

    /// Hands every id of the log over to a caller that numbers as the log
    /// does from now on, keeping none: one copy of the tables, the caller's.
    mutating func handOver() -> Identifiers {
        precondition(known == .all && table.counts == defined, "every id of the log, and only those, to hand over")
        numberedByCaller = true
        defer { table = Identifiers() }
        return table
    }

    /// Hands the numbering over to a caller that holds the log's ids
    /// itself, `counts` of each role, most of them in a file beside the log
    /// (``IDNumberFile``): this reads none and keeps none.
    mutating func handOver(counts: [Int]) {
        precondition(known == .none, "the log's ids handed over before any was read")
        (committed, defined, known, numberedByCaller) = (counts, counts, .all, true)
    }

    /// Says that ids were looked up in the log into `table`, at the log's numbers.
    mutating func lookedUp() {
        if known == .none {
            committed = table.counts
            defined = table.counts
        }
        known = .some
    }

    /// Encodes `events` with `encoder` as a batch of the log, numbering their
    /// new ids: from `ids`, their own tables; or, nil, from `table`, which
    /// the events' ids were read straight into.
    mutating func encode(_ events: ArraySlice<Event>, ids: Identifiers?, with encoder: inout BatchEncoder) -> BatchEncoder.Encoded {
        precondition(numberedByCaller || ids == nil || table.counts == defined, "ids read ahead into the log's tables were never written")
        let encoded =
            if numberedByCaller {
                encoder.encode(numbered: events, log: ids!, defined: defined)
            } else if let ids {
                encoder.encode(events, ids: ids, log: &table)
            } else {
                encoder.encode(numbered: events, log: table, defined: defined)
            }
        for role in Role.allCases.indices { defined[role] += encoded.newIDs[role] }
        return encoded
    }

    /// The tables that hold the log's ids at the log's numbers, for
    /// ``encode(_:ids:with:)`` given `ids`: the caller's once handed over, else this one's.
    func logTables(given ids: Identifiers?) -> Identifiers {
        numberedByCaller ? ids! : table
    }

    /// Keeps the ids the batches written so far add.
    mutating func commit() {
        committed = defined
    }

    /// Forgets the ids added since the last commit (the caller its own, once handed over).
    mutating func rollback() {
        if !numberedByCaller { table.removeIDs(from: committed) }
        defined = committed
    }
}
