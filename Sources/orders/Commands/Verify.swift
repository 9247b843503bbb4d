import ArgumentParser
import OrdersCore
import OrdersEngine
import OrdersFormat
import OrdersLog
import OrdersReports

extension Orders {
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Check every frame of a log or a dataset, or every line of NDJSON.",
            discussion: """
                Reads the whole log and checks the file header, every batch header and commit
                record (their checksums, and that seqs run without gaps), every zstd frame (its
                checksum, zstd's own content checksum, its sizes) and every event in it. Prints
                what it found; exits 65 if anything is corrupt, naming the byte offset and the
                seqs affected. Bytes after the last commit (an import cut short by a crash) are
                reported but are not corruption: the next import removes them.
                NDJSON (plain or zstd-compressed) is checked as every command reads it: every
                line well-formed, or the first that is not named, with its field (exit 65).
                A dataset's parts are checked against its manifest (bytes and CRC-32C), each
                as a log, for carts and voters in the part their ids route to, and for seqs
                that cover the dataset once.
                --strict also fails (exit 1) if the fold finds anomalies.

                Examples:
                  orders verify store.log
                  orders verify store.log --json | jq .result
                  orders verify events.ndjson.zst
                  orders verify store.dataset
                  orders verify store.log --threads 1
                """)

        @Argument(help: ArgumentHelp("The log to check, or NDJSON events (plain or zstd-compressed).", valueName: "log"))
        var log: String

        @Flag(help: "Print one JSON object.")
        var json = false

        @Flag(help: "Also fail if the fold finds anomalies.")
        var strict = false

        @Option(
            help: ArgumentHelp(
                "Threads to check with; 1 does everything on one thread. For a log, n threads read, check, decompress and decode batches ahead of one more that checks the ids across batches (and folds, with --strict), which mostly waits for them; then up to n search the ids for one spelled under two numbers. NDJSON is parsed in chunks on n threads. 1 to 256; defaults to the number of cores.",
                valueName: "n"))
        var threads: Int = Threads.cores

        func validate() throws {
            try Threads.check(threads)
        }

        func run() throws {
            try reportingFailures {
                if DatasetManifest.isDataset(log) { return try verifyDataset() }
                // The thread that gives the ids their bytes does less than half a worker's work: beside one worker, it mostly waited.
                let stream = try openEvents(
                    log,
                    options: ReadOptions(
                        skippingCorrupt: true, threads: threads, checkingSpellings: true,
                        callerMostlyWaits: true))
                if let reader = stream as? LogReader {
                    try verify(reader)
                } else {
                    try verifyEvents(stream)
                }
            }
        }

        /// Checks NDJSON as every command reads it: each line well-formed, or the first that is not named.
        private func verifyEvents(_ stream: any EventStream) throws {
            let count: Int64, anomalies: AnomalyCounts
            do {
                let check = try readAll(stream)
                (count, anomalies) = (check.events, check.anomalies)
            } catch {
                if json, error is InputError || error is ZstdError {
                    var out = JSONObject()
                    out.string("file", log)
                    out.string("result", "malformed")
                    out.string("format", "ndjson")
                    out.string("error", "\(error)")
                    Console.write(out.closed + [0x0A])
                }
                throw error
            }
            if json {
                var out = JSONObject()
                out.string("file", log)
                out.string("result", strict && anomalies.total > 0 ? "anomalies" : "ok")
                out.string("format", "ndjson")
                out.integer("events", count)
                if strict { out.object("anomalies", anomalyCounts(anomalies)) }
                Console.write(out.closed + [0x0A])
            } else {
                var text = "verify \(stream.name): OK\n"
                text += "  format     NDJSON, every line well-formed\n"
                text += "  events     \(Thousands.grouped(count))\n"
                if strict { text += anomalyLine(anomalies) }
                Console.write(text)
            }
            try failIfStrict(anomalies)
        }

        /// Checks every frame of a log and every id it spells, and says what it found.
        private func verify(_ reader: LogReader) throws {
            let check = try readAll(reader)
            let (readable, ids, anomalies, idTwice) = (check.events, check.ids, check.anomalies, check.idTwice)
            let survey = try LogSurvey(path: log)
            /// Every damaged stretch in file order: those that cost events, and those that cost none.
            let damage = reader.passedOver
            // Replay trusts the writer to number each spelling once; verify checks it.
            // More threads than cores would only hash every id once more each.
            let twice =
                ids.firstDuplicate(threads: min(threads, Threads.cores)).map { role, a, b in
                    "\(role.field) ids \(a.rawValue) and \(b.rawValue) are both spelled \(String(identifier: Array(ids[role][a]))): the log numbers one id twice"
                } ?? idTwice
            // What the writer acknowledged must all be there (WriterCheckpoint).
            let checkpoint = try WriterCheckpoint.read(log: log)
            let cutShort = checkpoint?.missing(endSeq: survey.committedEndSeq, committedEnd: survey.committedEnd)
            // The event-id file is derived, but one whose entries are not the log's would pass duplicates as new.
            let eventIDFile = try checkEventIDFile(of: log, against: check.eventIDs)
            // The id-number file too: one that numbers an id otherwise would have an append number it twice.
            let idNumberFile = try checkIDNumberFile(of: log, against: ids)
            let files: [(SortedRunFileWording, SortedRunFileState, Bool)] = [
                (.eventIDs, eventIDFile, check.eventIDs.count > 0), (.idNumbers, idNumberFile, reader.batchCount > 0),
            ]
            let fileDamage = files.compactMap { wording, state, _ -> String? in
                guard case .damaged(let reason) = state else { return nil }
                return
                    "\(wording.path(of: log)) does not match the log: \(reason); remove it, and \(wording.builtBy) builds it again"
            }.first
            let sound = !reader.foundDamage && twice == nil && cutShort == nil && fileDamage == nil
            if json {
                var out = JSONObject()
                out.string("file", log)
                out.string("result", sound ? (strict && anomalies.total > 0 ? "anomalies" : "ok") : "corrupt")
                out.integer("version", Int(survey.version ?? 0))
                out.integer("commits", survey.commits)
                out.integer("batches", reader.batchCount)
                out.integer("events", reader.eventCount)
                out.integer("readable_events", readable)
                out.array(
                    "damage",
                    damage.map { skip in
                        var o = JSONObject()
                        o.integer("offset", skip.offset)
                        if !skip.seqs.isEmpty { o.integer("first_seq", skip.seqs.lowerBound) }
                        o.integer("events", skip.seqs.count)
                        o.string("reason", skip.reason)
                        return o
                    }
                        + ([twice, cutShort, fileDamage].compactMap { $0 }.map { reason in
                            var o = JSONObject()
                            o.integer("events", 0)
                            o.string("reason", reason)
                            return o
                        }))
                if let checkpoint { out.integer("acknowledged_events", checkpoint.endSeq - 1) }
                for (wording, state, filed) in files {
                    if let object = wording.json(state, logHasIDs: filed) { out.object(wording.jsonKey, object) }
                }
                if let tail = reader.tail {
                    var t = JSONObject()
                    t.integer("offset", tail.offset)
                    t.integer("length", tail.length)
                    t.string("reason", tail.reason)
                    out.object("tail", t)
                }
                if strict { out.object("anomalies", anomalyCounts(anomalies)) }
                Console.write(out.closed + [0x0A])
            } else {
                var text = "verify \(log): \(sound ? "OK" : "CORRUPT")\n"
                text += "  format     version \(survey.version.map(String.init) ?? "unreadable")\n"
                text += "  commits    \(survey.commits)\n"
                text += "  batches    \(Thousands.grouped(reader.batchCount)) readable\n"
                let lost = reader.eventCount - readable
                text +=
                    "  events     \(Thousands.grouped(reader.eventCount)) committed"
                    + (lost == 0 ? ", all readable\n" : ", \(Thousands.grouped(lost)) unreadable\n")
                for skip in damage { text += "  damage     \(skip)\n" }
                if let twice { text += "  damage     \(twice)\n" }
                if let cutShort { text += "  damage     \(cutShort)\n" }
                if let fileDamage { text += "  damage     \(fileDamage)\n" }
                for (wording, state, filed) in files { text += wording.line(state, of: log, logHasIDs: filed) ?? "" }
                if let checkpoint {
                    text += "  acked      \(Thousands.grouped(checkpoint.endSeq - 1)) events (\(WriterCheckpoint.path(of: log)))\n"
                }
                if let tail = reader.tail {
                    let next = cutShort == nil ? "the next import removes them" : "acknowledged, so no import removes them"
                    text += "  tail       \(tail.length) bytes after byte \(tail.offset) that no commit covers (\(tail.reason)); \(next)\n"
                }
                if strict { text += anomalyLine(anomalies) }
                Console.write(text)
            }
            Console.flush()
            if !sound {
                // A derived file's damage alone leaves the log whole: no repair, only the file to remove.
                if let fileDamage, !reader.foundDamage && twice == nil && cutShort == nil {
                    Console.note("orders: error: the log is whole, but \(fileDamage)")
                    throw ExitCode(ErrorCode.corruptLog.exitStatus)
                }
                let first = damage.first.map { "\($0)" } ?? twice ?? cutShort ?? fileDamage ?? ""
                Console.note("orders: error: \(log) is corrupt: \(first); `orders repair` copies what can be read into a new log")
                throw ExitCode(ErrorCode.corruptLog.exitStatus)
            }
            try failIfStrict(anomalies)
        }

        /// Checks a dataset (``DatasetCheck``): each part against the manifest and as a log, the routing, and the merged seqs.
        private func verifyDataset() throws {
            let progress = Progress("verifying")
            let check = try DatasetCheck.run(log, folding: strict) { progress.advance($0, position: $1) }
            progress.finish()
            let sound = check.problems.isEmpty
            let anomalies = check.merged.anomalies
            if json {
                var out = JSONObject()
                out.string("file", log)
                out.string("result", sound ? (strict && anomalies.total > 0 ? "anomalies" : "ok") : "corrupt")
                out.string("format", "dataset")
                out.integer("version", check.manifest.version)
                out.integer("parts", check.manifest.parts.count)
                out.integer("events", check.manifest.events)
                out.strings("damage", check.problems)
                out.strings("tails", check.tails)
                if strict { out.object("anomalies", anomalyCounts(anomalies)) }
                Console.write(out.closed + [0x0A])
            } else {
                var text = "verify \(log): \(sound ? "OK" : "CORRUPT")\n"
                text += "  format     dataset version \(check.manifest.version), \(check.manifest.parts.count) parts\n"
                text += "  events     \(Thousands.grouped(check.manifest.events))" + (sound ? ", every part matching the manifest\n" : "\n")
                for problem in check.problems { text += "  damage     \(problem)\n" }
                for tail in check.tails { text += "  tail       \(tail)\n" }
                if strict && sound { text += anomalyLine(anomalies) }
                Console.write(text)
            }
            Console.flush()
            if !sound {
                Console.note("orders: error: \(log) is corrupt: \(check.problems[0])")
                throw ExitCode(ErrorCode.corruptLog.exitStatus)
            }
            try failIfStrict(anomalies)
        }

        /// Reads every event of `stream` (``LogCheck``), folding them too with --strict, with a progress line.
        private func readAll(_ stream: any EventStream) throws -> LogCheck {
            let progress = Progress("verifying")
            defer { progress.finish() }
            return try LogCheck.read(stream, folding: strict) { progress.advance($0, position: $1) }
        }

        private func anomalyCounts(_ anomalies: AnomalyCounts) -> JSONObject {
            var counts = JSONObject()
            for kind in Anomaly.allCases { counts.integer(kind.description, anomalies[kind]) }
            return counts
        }

        private func anomalyLine(_ anomalies: AnomalyCounts) -> String {
            let found = Anomaly.allCases.filter { anomalies[$0] > 0 }.map { "\($0) \(anomalies[$0])" }
            return "  anomalies  \(found.isEmpty ? "none" : found.joined(separator: ", "))\n"
        }

        /// With --strict, fails (exit 1) if the fold found anomalies.
        private func failIfStrict(_ anomalies: AnomalyCounts) throws {
            if strict && anomalies.total > 0 {
                Console.note(
                    "orders: error: \(log): the fold found \(Thousands.grouped(anomalies.total)) \(anomalies.total == 1 ? "anomaly" : "anomalies") (--strict)"
                )
                throw ExitCode.failure
            }
        }
    }
}
