import OrdersCore
import OrdersFormat

/// Turns a batch of events into the payload of one zstd frame (FORMAT.md):
/// a dictionary per role, with the ids the batch adds to the log and those
/// it spells again, then one column per field.
///
/// Columns rather than rows: like values sit together, which zstd compresses
/// far better, and each column decodes in a tight loop.
package struct BatchEncoder: ~Copyable {
    package init() {}

    /// Per role whose ids are few (products, polls, candidates), by an id's
    /// number in the log: the batch that last used it, so that each earlier
    /// id a batch uses is listed once. The carts, orders and voters, as many
    /// as the log's events nearly, are listed at each use and made unique
    /// when the batch is sealed: a table of them took 4 bytes an id of the
    /// log (90 MB at 100M events) from a writer's first batch on.
    private var lastUse: [[UInt32]] = Array(repeating: [], count: Role.allCases.count)
    /// By role: whether its earlier ids are listed at each use (``lastUse``). Kept here rather than
    /// static: a static is initialized lazily, and `write` would check it at every id.
    private let listedAtEachUse = Role.allCases.map { LogFormat.unfoldedRoles.contains($0) }
    /// This batch's serial, for `lastUse`; 0 is none.
    private var batch: UInt32 = 0
    /// Per role: the ids this batch uses that earlier batches added.
    private var again: [[UInt32]] = Array(repeating: [], count: Role.allCases.count)
    /// Per role: the number of the ids earlier batches added, and of the next new one.
    private var firstNew = PerRole()
    private var next = PerRole()
    private var currencies: [Currency] = []
    /// Each currency's place in `currencies` plus one (0 for none yet), by
    /// its letters: a batch may hold all 17,576 codes, and searching the
    /// list for each event made an import quadratic in them.
    private var currencyPlaces = [UInt16](repeating: 0, count: 26 * 26 * 26)
    private var columns = ColumnWriters()
    /// The last price written for each product in this batch, which the prices column's deltas are from.
    private var lastPrices = LastPrices()

    /// The encoded batch and its time range.
    package struct Encoded: Sendable {
        package var payload: [UInt8]
        /// How many bytes from the payload's start a fold reads.
        package var foldSize: Int
        package var minAt: Int64
        package var maxAt: Int64
        /// How many ids of each role (in ``Role`` order) the batch adds to the log.
        package var newIDs: [Int]
    }

    /// Encodes `events`, whose ids are numbers in `ids`, giving each id its
    /// number in `log` (the tables of every id the log holds so far),
    /// adding those that are new.
    ///
    /// The ids the events use are interned role by role, each once, in the
    /// order the events first use them (so new ones are numbered in that
    /// order, as the format wants), all together in stages whose cache
    /// misses overlap (``SymbolTable/intern(_:of:into:)``), rather than one
    /// at a time, each a miss in the log's index.
    package mutating func encode(_ events: ArraySlice<Event>, ids: Identifiers, log: inout Identifiers) -> Encoded {
        let defined = log.counts
        renumbering &+= 1
        if renumbering == 0 {
            // After 2³² batches, the marks start over.
            for role in logNumbers.indices { logNumbers[role] = [] }
            renumbering = 1
        }
        let serial = UInt64(renumbering)
        used.reserveCapacity(events.count)
        interned.reserveCapacity(events.count)
        for role in Role.allCases {
            let table = ids[role]
            let r = role.rawValue
            if logNumbers[r].count < table.count {
                logNumbers[r].append(contentsOf: repeatElement(0, count: table.count - logNumbers[r].count))
            }
            used.removeAll(keepingCapacity: true)
            for event in events {
                guard let id = event.id(role), logNumbers[r][id.index] >> 32 != serial else { continue }
                logNumbers[r][id.index] = serial << 32
                used.append(id)
            }
            guard !used.isEmpty else { continue }
            interned.removeAll(keepingCapacity: true)
            log[role].intern(used, of: table, into: &interned)
            for i in used.indices { logNumbers[r][used[i].index] = serial << 32 | UInt64(interned[i].rawValue) }
        }
        var numbered: [Event] = []
        numbered.reserveCapacity(events.count)
        for event in events {
            numbered.append(
                event.renumbered { role, id in Symbol(rawValue: UInt32(truncatingIfNeeded: logNumbers[role.rawValue][id.index])) })
        }
        return encode(numbered: numbered[...], log: log, defined: defined)
    }

    /// Per role, by an id's number in the tables `encode(_:ids:log:)` was
    /// last given: the number in the log it was given for the batch whose
    /// `renumbering` is in the high half.
    private var logNumbers: [[UInt64]] = Array(repeating: [], count: Role.allCases.count)
    /// The serial of the last batch `encode(_:ids:log:)` renumbered; 0 is none.
    private var renumbering: UInt32 = 0
    /// The ids of one role a batch uses, in the order it first uses them,
    /// and their numbers in the log: kept, so that each batch allocates neither.
    private var used: [Symbol] = []
    private var interned: [Symbol] = []

    /// Encodes `events` whose ids are numbered in the log's own tables `log`
    /// already; the first `defined[role]` ids of each role are those earlier
    /// batches added. No id is hashed: this is how a writer takes events
    /// read straight into its tables.
    ///
    /// The format numbers a batch's new ids in the order its columns first
    /// use them, so they must have been numbered in that order: as
    /// `NDJSONParser` does, interning each event's ids as it reads them.
    package mutating func encode(numbered events: ArraySlice<Event>, log: Identifiers, defined: [Int]) -> Encoded {
        start(defined: defined, products: log.products.count)
        var previousAt: Int64 = 0
        var minAt = Int64.max
        var maxAt = Int64.min
        for event in events {
            let at = event.at.milliseconds
            columns.times.write(zigzag: at &- previousAt)
            previousAt = at
            minAt = min(minAt, at)
            maxAt = max(maxAt, at)
            switch event.kind {
            case let .itemAdded(cart, product, qty, price, currency):
                write(kind: .itemAdded, qty: qty)
                write(cart, .cart)
                write(product, .product)
                // A product's price rarely changes within a batch: the delta is mostly zero.
                // Checked here, not by `lastPrices`: the reader's column loop checks its products itself.
                precondition(product.index < log.products.count, "a product id not in the log's tables")
                columns.prices.write(zigzag: price &- lastPrices.last(of: product))
                lastPrices.set(price, of: product)
                columns.currencies.write(varint: UInt64(index(of: currency)))
            case let .quantityChanged(cart, product, qty):
                write(kind: .quantityChanged, qty: qty)
                write(cart, .cart)
                write(product, .product)
            case let .itemRemoved(cart, product):
                columns.kinds.write(LogFormat.Kind.itemRemoved.byte)
                write(cart, .cart)
                write(product, .product)
            case let .checkedOut(cart, order):
                columns.kinds.write(LogFormat.Kind.checkedOut.byte)
                write(cart, .cart)
                write(order, .order)
            case let .voteCast(poll, voter, candidate):
                columns.kinds.write(LogFormat.Kind.voteCast.byte)
                write(poll, .poll)
                write(voter, .voter)
                write(candidate, .candidate)
            case .ignored:
                columns.kinds.write(LogFormat.Kind.ignored.byte)
            }
        }
        let (payload, foldSize) = payload(count: events.count, log: log)
        return Encoded(
            payload: payload, foldSize: foldSize, minAt: minAt, maxAt: maxAt,
            newIDs: Role.allCases.map { next[$0] - firstNew[$0] })
    }

    /// How many ids of `role` the batch last encoded spells: those it adds and those it uses again.
    package func spelledCount(of role: Role) -> Int {
        next[role] - firstNew[role] + again[role.rawValue].count
    }

    /// Hands `body` the spelling of each id of `role` that the batch last
    /// encoded spells, from `log`, the tables it was encoded against: what
    /// its dictionary holds, without reading the payload back.
    package func forEachSpelling(of role: Role, log: Identifiers, _ body: (UnsafeRawBufferPointer) -> Void) {
        let table = log[role]
        for number in firstNew[role]..<next[role] { table.withBytes(of: Symbol(rawValue: UInt32(number)), body) }
        for number in again[role.rawValue] { table.withBytes(of: Symbol(rawValue: number), body) }
    }

    /// Starts a batch after the batches that added `defined[role]` ids of
    /// each role, whose products are numbered below `products`.
    private mutating func start(defined: [Int], products: Int) {
        batch += 1
        firstNew = PerRole(defined)
        next = PerRole(defined)
        for role in Role.allCases.indices {
            again[role].removeAll(keepingCapacity: true)
            if !listedAtEachUse[role], lastUse[role].count < defined[role] {
                lastUse[role].append(contentsOf: repeatElement(0, count: defined[role] - lastUse[role].count))
            }
        }
        for currency in currencies { currencyPlaces[Self.letters(of: currency)] = 0 }
        currencies.removeAll(keepingCapacity: true)
        columns.removeAll()
        lastPrices.startBatch(products: products)
    }

    /// A kind byte with the quantity in its high bits when it fits, else in the quantities column.
    private mutating func write(kind: LogFormat.Kind, qty: Int64) {
        if qty <= LogFormat.maxInlineQuantity {
            columns.kinds.write(kind.byte | UInt8(qty) << LogFormat.kindBits)
        } else {
            columns.kinds.write(kind.byte)
            columns.quantities.write(varint: UInt64(qty))
        }
    }

    /// An id, as its role's column refers to it: a *recent* role by its
    /// distance back from the next new number (0 for a new id), a *stable*
    /// one by its number.
    @inline(__always)
    private mutating func write(_ id: Symbol, _ role: Role) {
        let number = id.index
        let isNew = number == next[role]
        if number >= firstNew[role] {
            precondition(number <= next[role], "ids must be numbered in the order the events first use them")
        } else if listedAtEachUse[role.rawValue] {
            again[role.rawValue].append(UInt32(number))
        } else if lastUse[role.rawValue][number] != batch {
            lastUse[role.rawValue][number] = batch
            again[role.rawValue].append(UInt32(number))
        }
        switch role {
        case .cart: columns.carts.write(varint: isNew ? 0 : UInt64(next[role] - number))
        case .order: columns.orders.write(varint: isNew ? 0 : UInt64(next[role] - number))
        case .voter: columns.voters.write(varint: isNew ? 0 : UInt64(next[role] - number))
        case .product: columns.products.write(varint: UInt64(number))
        case .poll: columns.polls.write(varint: UInt64(number))
        case .candidate: columns.candidates.write(varint: UInt64(number))
        }
        if isNew { next[role] += 1 }
    }

    private mutating func index(of currency: Currency) -> Int {
        let letters = Self.letters(of: currency)
        if currencyPlaces[letters] != 0 { return Int(currencyPlaces[letters]) - 1 }
        currencies.append(currency)
        currencyPlaces[letters] = UInt16(currencies.count)
        return currencies.count - 1
    }

    /// A currency's three letters as a number below 26³.
    private static func letters(of currency: Currency) -> Int {
        let raw = Int(currency.rawValue), a = Int(UInt8(ascii: "A"))
        return ((raw & 0xFF) - a) * 676 + ((raw >> 8 & 0xFF) - a) * 26 + (raw >> 16 & 0xFF) - a
    }

    /// The whole payload: each role's counts; the spellings a fold reads
    /// (products, polls, candidates); the currencies; the columns; then the
    /// spellings no fold reads (carts, orders, voters).
    /// - Returns: the payload, and how many bytes of it a fold reads.
    private mutating func payload(count: Int, log: Identifiers) -> ([UInt8], Int) {
        let columns = columns.inOrder
        var payload = ByteWriter(
            capacity: columns.reduce(64) { $0 + $1.bytes.count } + 16 * Role.allCases.reduce(0) { $0 + next[$1] - firstNew[$1] })
        payload.write(varint: UInt64(count))
        let sections = Role.allCases.map { section(of: $0, log: log) }
        for role in Role.allCases {
            let r = role.rawValue
            payload.write(varint: UInt64(firstNew[role]))
            payload.write(varint: UInt64(next[role] - firstNew[role]))
            payload.write(varint: UInt64(again[r].count))
            payload.write(varint: UInt64(sections[r].count))
        }
        for role in LogFormat.foldedRoles { payload.write(contentsOf: sections[role.rawValue]) }
        payload.write(varint: UInt64(currencies.count))
        for currency in currencies { payload.write(contentsOf: currency.code) }
        for column in columns { payload.write(varint: UInt64(column.bytes.count)) }
        for column in columns { payload.write(contentsOf: column.bytes) }
        let foldSize = payload.bytes.count
        for role in LogFormat.unfoldedRoles { payload.write(contentsOf: sections[role.rawValue]) }
        return (payload.bytes, foldSize)
    }

    /// A role's section: the numbers of the ids spelled again, every
    /// length, every spelling.
    private mutating func section(of role: Role, log: Identifiers) -> [UInt8] {
        let r = role.rawValue
        again[r].sort()
        if listedAtEachUse[r] { again[r].removeAdjacentDuplicates() }
        let table = log[role]
        var section = ByteWriter()
        var previous = -1
        for number in again[r] {
            section.write(varint: UInt64(Int(number) - previous - 1))
            previous = Int(number)
        }
        let spelled = Array(firstNew[role]..<next[role]) + again[r].map(Int.init)
        for number in spelled { section.write(varint: UInt64(table.withBytes(of: Symbol(rawValue: UInt32(number))) { $0.count })) }
        for number in spelled { table.withBytes(of: Symbol(rawValue: UInt32(number))) { section.write(contentsOf: $0) } }
        return section.bytes
    }
}

/// The columns of the batch being written.
private struct ColumnWriters {
    var kinds = ByteWriter(), times = ByteWriter(), carts = ByteWriter(), products = ByteWriter()
    var orders = ByteWriter(), polls = ByteWriter(), voters = ByteWriter(), candidates = ByteWriter()
    var quantities = ByteWriter(), prices = ByteWriter(), currencies = ByteWriter()

    /// Every column, in the format's order.
    private static var order: [WritableKeyPath<Self, ByteWriter>] {
        [\.kinds, \.times, \.carts, \.products, \.orders, \.polls, \.voters, \.candidates, \.quantities, \.prices, \.currencies]
    }

    var inOrder: [ByteWriter] { Self.order.map { self[keyPath: $0] } }

    /// Empties every column, keeping its capacity for the next batch.
    mutating func removeAll() {
        for column in Self.order { self[keyPath: column].bytes.removeAll(keepingCapacity: true) }
    }
}

/// A count for each role, in six stored fields: what the encoder reads and
/// bumps for every id it writes, with none of an array's checks.
private struct PerRole {
    private var counts = (0, 0, 0, 0, 0, 0)

    init() {}

    init(_ counts: [Int]) {
        for role in Role.allCases { self[role] = counts[role.rawValue] }
    }

    subscript(role: Role) -> Int {
        @inline(__always) get {
            switch role {
            case .cart: counts.0
            case .product: counts.1
            case .order: counts.2
            case .poll: counts.3
            case .voter: counts.4
            case .candidate: counts.5
            }
        }
        @inline(__always) set {
            switch role {
            case .cart: counts.0 = newValue
            case .product: counts.1 = newValue
            case .order: counts.2 = newValue
            case .poll: counts.3 = newValue
            case .voter: counts.4 = newValue
            case .candidate: counts.5 = newValue
            }
        }
    }
}

extension Array where Element: Equatable {
    /// Keeps the first of each run of equal elements: a sorted array's elements once each.
    fileprivate mutating func removeAdjacentDuplicates() {
        guard count > 1 else { return }
        var kept = 1
        for i in 1..<count where self[i] != self[kept - 1] {
            self[kept] = self[i]
            kept += 1
        }
        removeLast(count - kept)
    }
}
