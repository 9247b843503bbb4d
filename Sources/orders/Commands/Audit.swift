import ArgumentParser
import OrdersCore
import OrdersEngine
import OrdersLog
import OrdersReports

extension Orders {
    struct Audit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "audit",
            abstract: "Show every event of one cart and what the fold made of it.",
            discussion: """
                Prints NDJSON: each event of the cart in log order with its seq, its status
                (applied, or the anomaly) and the cart's units and total after it:
                  {"seq": 7, "type": "item_added", ..., "status": "cart_closed",
                   "cart_units": 2, "cart_total": 398000}
                --order finds the cart whose checkout placed that order.
                A log is read through its index (LOG.index, kept by every append): only
                the batches that may hold the cart's events, and those of the earlier
                checkouts of its orders' ids, are read. --no-index reads the whole log,
                as NDJSON, a dataset and --skip-corrupt always are; the answer is the same.

                Examples:
                  orders audit store.log --cart kiosk-1
                  orders audit store.log --order A-1001 --format table
                """)

        @OptionGroup var input: InputArgument<ReadThreads>

        @Option(help: ArgumentHelp("The cart to audit.", valueName: "id"))
        var cart: String?

        @Option(help: ArgumentHelp("Audit the cart that placed this order.", valueName: "id"))
        var order: String?

        @Option(help: "ndjson or table.")
        var format: AuditFormat = .ndjson

        enum AuditFormat: String, ExpressibleByArgument, CaseIterable { case ndjson, table }

        @Flag(help: "Read the whole log rather than the batches its index names.")
        var noIndex = false

        func validate() throws {
            guard (cart == nil) != (order == nil) else { throw ValidationError("give exactly one of --cart and --order") }
            try check(id: cart, option: "cart")
            try check(id: order, option: "order")
            if input.log == "-" && order != nil {
                throw ValidationError("--order reads the input twice, so it needs a file, not standard input")
            }
        }

        func run() throws {
            try reportingFailures {
                if !noIndex, !input.readOptions.skippingCorrupt,
                    let log = try openStream(input.log, options: input.readOptions) as? LogReader
                {
                    do {
                        return try auditThroughIndex(log)
                    } catch is IndexedAudit.TooDeep {
                        // A chain of order ids taken from cart to cart too long to follow: the whole log answers it.
                    }
                }
                let cartID: [UInt8]
                if let cart {
                    cartID = Array(cart.utf8)
                } else {
                    guard let found = try cartOf(order: Array(order!.utf8)) else {
                        // An id the log does not name is an answer, not a failure (docs/commands.md, "Exit status").
                        Console.note("orders: no applied checkout placed order \(order!) in \(input.log)")
                        return
                    }
                    cartID = found
                }
                try audit(cart: cartID)
            }
        }

        /// Streams the audit of one cart (``CartAudit``).
        private func audit(cart cartID: [UInt8]) throws {
            let name = String(decoding: cartID, as: UTF8.self)
            var audit = CartAudit(cart: cartID)
            var table = AuditReport.table()
            let stream = try openStream(input.log, options: input.readOptions)
            try readEvents(stream, progress: "auditing") { chunk, events, ids in
                audit.fold(first: chunk.firstSeq, events, records: chunk.records, ids: ids) { entry, record, currency in
                    switch format {
                    case .ndjson: Console.write(AuditReport.line(entry, record: record, ids: ids))
                    case .table: AuditReport.row(entry, record: record, ids: ids, currency: currency, to: &table)
                    }
                }
            }
            if format == .table { Console.write("cart \(String(identifier: cartID))\n" + table.rendered) }
            if audit.found == 0 { Console.note("orders: no events for cart \(name) in \(input.log)") }
        }

        /// The audit read through the log's index (``IndexedAudit``): the same lines, from the batches that hold them.
        private func auditThroughIndex(_ log: LogReader) throws {
            let audit = try IndexedAudit(log)
            var cartID = Array((cart ?? "").utf8)
            if let order {
                guard let found = try audit.cart(placing: Array(order.utf8)) else {
                    noteIndexedFromLog(audit, of: log)
                    Console.note("orders: no applied checkout placed order \(order) in \(input.log)")
                    return
                }
                cartID = found
            }
            var table = AuditReport.table()
            var text: [UInt8] = []
            let found = try audit.audit(cart: cartID) { entry, record, currency in
                switch format {
                case .ndjson: text += AuditReport.line(entry, record: record, ids: audit.ids)
                case .table: AuditReport.row(entry, record: record, ids: audit.ids, currency: currency, to: &table)
                }
            }
            Console.write(text)
            if format == .table { Console.write("cart \(String(identifier: cartID))\n" + table.rendered) }
            noteIndexedFromLog(audit, of: log)
            if found == 0 { Console.note("orders: no events for cart \(String(decoding: cartID, as: UTF8.self)) in \(input.log)") }
        }

        /// Says how many batches the audit indexed from the log for want of
        /// a sound index: slower than the index, never another answer, and
        /// said so that a slow audit is no mystery.
        private func noteIndexedFromLog(_ audit: IndexedAudit, of log: LogReader) {
            guard audit.batchesIndexedFromLog > 0 else { return }
            Console.note(
                "orders: note: \(audit.batchesIndexedFromLog) of the \(log.batchCount) batches of \(input.log) had no sound entry in its index (an index of another version, behind the log, damaged or missing) and were indexed from the log for this audit; the next append to the log writes them to the index"
            )
        }

        /// The cart whose applied checkout placed `order`, found in a first
        /// pass that folds every cart's events and no vote.
        private func cartOf(order: [UInt8]) throws -> [UInt8]? {
            struct Locator: FoldObserver {
                var order: Symbol?
                var cart: Symbol?
                mutating func placed(_ placed: PlacedOrder) {
                    if placed.id == order, cart == nil { cart = placed.cart }
                }
                mutating func voted(poll: Symbol, candidate: Symbol) {}
            }
            var ledger = Ledger()
            var locator = Locator()
            var cart: [UInt8]?
            /// Order numbers below this were compared with `order` and are not it.
            var searched = 0
            try readEvents(input.log, options: input.readOptions, progress: "finding order") { _, events, ids in
                guard locator.cart == nil else { return }
                if locator.order == nil {
                    locator.order = ids.orders.firstSymbol(spelled: order, from: searched)
                    searched = ids.orders.count
                }
                for event in events where event.cart != nil {  // votes place no order
                    _ = ledger.apply(event, observer: &locator)
                    if let found = locator.cart {
                        cart = Array(ids.carts[found])
                        return
                    }
                }
            }
            return cart
        }
    }
}
