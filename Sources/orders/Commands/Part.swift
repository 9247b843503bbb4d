import ArgumentParser
import OrdersCore
import OrdersEngine
import OrdersFiles
import OrdersLog
import OrdersReports

extension Orders {
    /// Plumbing, as git has: the passes of a dataset's fold as separate
    /// processes, for a cluster to schedule (Spark/orders_spark). Each reads
    /// files and writes standard output, a pure function of its inputs, so
    /// that a task retried or run twice gives the same bytes.
    struct Part: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "part",
            abstract: "Plumbing: a dataset's fold as separate passes, for a cluster (Spark).",
            discussion: """
                What `orders replay DIR` does on one machine, cut into the tasks a cluster runs
                (docs/datasets.md; Spark/orders_spark runs them):
                  1. orders part claims DIR --part K > claims-K       (one task a part)
                  2. the order ids of more than one part's claims > contested   (a shuffle)
                     orders part select claims-K --contested contested > sent-K (one task a part)
                  3. orders part decide sent-* > notes                (one small, ordered pass)
                  4. orders part fold DIR --part K --notes notes > sums-K   (one task a part)
                  5. orders part merge sums-A sums-B --print reports > sums-AB   (a tree)
                     orders part merge sums-* --print daily           (the outputs of the CLI)
                Step 2 may be left out (decide then takes every claim); either way the
                answers are the same. Every text is small next to the part: the checkouts
                (after step 2, only those an order id used in another part reaches), the
                order ids another part took first, the sums of the reports. The sums are
                bytes (orders-sums, version 1, with a checksum), never written to a terminal.
                """,
            subcommands: [Claims.self, Select.self, Decide.self, Fold.self, Merge.self])
    }
}

extension Orders.Part {
    struct Claims: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "claims",
            abstract: "The first pass over part K: its checkouts, each with its seq, order id and whether it could apply.")

        @Argument(help: ArgumentHelp("The dataset.", valueName: "dir"))
        var dataset: String

        @Option(help: ArgumentHelp("The part.", valueName: "k"))
        var part: Int

        func run() throws {
            try reportingFailures {
                let set = try open(dataset, part: part)
                let (claims, orders) =
                    set.manifest.parts[part].events > 0 ? try DatasetFold.claims(of: set, part: part) : ([], SymbolTable())
                Console.write(PartTexts.claims(part: part, claims, orders: orders))
            }
        }
    }

    struct Select: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "select",
            abstract: "Of part K's claims, those the ordered pass needs, given the order ids used in more than one part.",
            discussion: """
                The contested file is `orders-contested<TAB>1` on its first line, then one order
                id a line, in hexadecimal as the claims spell them. A claim is kept if its order
                id is contested, or if a kept claim's decision reaches it (an earlier checkout of
                its cart or its order id); the part decides every other one itself.
                """)

        @Argument(help: ArgumentHelp("The part's claims (orders part claims).", valueName: "claims"))
        var file: String

        @Option(help: ArgumentHelp("The order ids used in more than one part.", valueName: "file"))
        var contested: String

        func run() throws {
            try reportingFailures {
                let read = try PartTexts.readClaims(readWholeInput(file), name: file)
                let ids = try PartTexts.readContested(readWholeInput(contested), name: contested)
                var isContested = [Bool](repeating: false, count: read.orders.count)
                for number in 0..<read.orders.count where ids.lookup(read.orders[Symbol(rawValue: UInt32(number))]) != nil {
                    isContested[number] = true
                }
                let sent = ContestedClaims.dependent(read.claims) { isContested[$0.index] }
                Console.write(PartTexts.claims(part: read.part, sent, orders: read.orders))
            }
        }
    }

    struct Decide: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "decide",
            abstract: "The ordered pass: every part's claims in, every part's notes out (order ids another part took first).")

        @Argument(help: ArgumentHelp("Every part's claims, one file a part.", valueName: "claims"))
        var files: [String]

        func run() throws {
            try reportingFailures {
                let read = try files.map { try PartTexts.readClaims(readWholeInput($0), name: $0) }
                let notes = DatasetFold.decide(read.map { ($0.claims, $0.orders) })
                Console.write(PartTexts.notes(zip(read, notes).map { ($0.part, $1) }))
            }
        }
    }

    struct Fold: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fold",
            abstract: "The second pass over part K: its reports' sums, as bytes, given the notes.")

        @Argument(help: ArgumentHelp("The dataset.", valueName: "dir"))
        var dataset: String

        @Option(help: ArgumentHelp("The part.", valueName: "k"))
        var part: Int

        @Option(help: ArgumentHelp("The notes of `orders part decide`.", valueName: "file"))
        var notes: String

        @OptionGroup var zone: ZoneOption

        func validate() throws { try Console.refuseBytesOnTerminal("A part's sums") }

        func run() throws {
            try reportingFailures {
                let set = try open(dataset, part: part)
                let rules = try zone.rules()
                let noted = try PartTexts.readNotes(readWholeInput(notes), part: part, name: notes)
                let (reports, ids) =
                    set.manifest.parts[part].events > 0
                    ? try DatasetFold.fold(set, part: part, zone: rules, notes: noted) : (Reports(zone: rules), Identifiers())
                Console.write(PartSums.encode(reports, ids: ids))
            }
        }
    }

    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge",
            abstract: "Adds every part's reports and prints one, as `orders replay --json`, `report` or `tally` would.")

        enum Output: String, ExpressibleByArgument, CaseIterable {
            case replay, daily, products, tally
            /// The sums themselves, as `orders part fold` prints them: one step of a merge in a tree.
            case reports
        }

        @Argument(help: ArgumentHelp("Every part's sums (orders part fold, or merge --print reports), one file a part.", valueName: "sums"))
        var files: [String]

        @Option(
            help: ArgumentHelp(
                "replay (its JSON), daily, products or tally, to standard output; or reports, the sums as bytes, for another merge.",
                valueName: "output"))
        var print: Output?

        @Option(
            help: ArgumentHelp(
                "Write every output into this directory instead, reading the reports once: replay.json, daily.csv, products.csv, tally.csv.",
                valueName: "dir"))
        var out: String?

        @Option(help: "csv or json, for daily, products and tally.")
        var format: TabularFormat = .csv

        @OptionGroup var zone: ZoneOption

        func validate() throws {
            guard (print == nil) != (out == nil) else { throw ValidationError("give --print OUTPUT or --out DIR") }
            if print == .reports { try Console.refuseBytesOnTerminal("The sums") }
        }

        func run() throws {
            try reportingFailures {
                let rules = try zone.rules()
                var ids = Identifiers()
                var reports = Reports(zone: rules)
                for file in files { try PartSums.add(readWholeInput(file), to: &reports, ids: &ids, name: file) }
                if let print { return Console.write(try render(print, format, reports, ids)) }
                for output in Output.allCases where output != .reports {
                    let name = out! + "/" + output.rawValue + (output == .replay ? ".json" : ".csv")
                    try replaceFile(name, with: render(output, .csv, reports, ids))
                }
            }
        }

        /// One output, as the command that prints it would print it.
        private func render(_ output: Output, _ format: TabularFormat, _ reports: Reports, _ ids: Identifiers) throws -> [UInt8] {
            switch (output, format) {
            case (.reports, _): return PartSums.encode(reports, ids: ids)
            case (.replay, _): return try SummaryReport.json(reports.summary)
            case (.daily, .json): return try DailyReport(reports.daily, zone: zone.zone, from: nil, to: nil).json()
            case (.daily, _): return try DailyReport(reports.daily, zone: zone.zone, from: nil, to: nil).csv()
            case (.products, let format):
                let report = ProductReport(
                    reports.products, ids: ids, zone: zone.zone, catalog: Catalog(), grouping: .product, from: nil, to: nil, top: nil)
                return format == .json ? try report.json() : try report.csv()
            case (.tally, let format):
                let report = TallyReport(reports.tally, ids: ids, poll: nil)
                return format == .json ? report.json() : report.csv()
            }
        }
    }
}

/// The dataset in `directory`, once `part` is one of its parts.
private func open(_ directory: String, part: Int) throws -> Dataset {
    let dataset = try Dataset(directory: directory)
    guard dataset.manifest.parts.indices.contains(part) else {
        throw ValidationError(
            "--part must be 0 to \(dataset.manifest.parts.count - 1): \(directory) has \(dataset.manifest.parts.count) parts")
    }
    return dataset
}
