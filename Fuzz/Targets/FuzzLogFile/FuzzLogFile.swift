import Glibc
import OrdersCore
import OrdersLog

/// A whole file through format detection and every reader (log, NDJSON,
/// zstd): it is written to a file in /dev/shm and read to the end, and a
/// log is folded four ways that must agree (by its events, straight from
/// its columns on one thread and on two, and in parts), and read as
/// verify reads it on one thread and on two. A fold reads less than `next`
/// (not the spellings of carts, orders and voters), so it may succeed where
/// `next` fails; where `next` succeeds, every fold must give its reports.
/// And it is exported on one thread and on two workers, to the same text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLogFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let path = "/dev/shm/orders-fuzz-\(getpid())"
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return 0 }
    _ = write(fd, data, size)
    close(fd)
    defer { unlink(path) }
    guard let stream = try? openEvents(path) else { return 0 }
    var ids = Identifiers()
    var events: [Event] = []
    var projector = Projector()
    var failed = false
    do {
        while try stream.next(ids: &ids, into: &events) != nil {
            for event in events { projector.fold(event) }
        }
    } catch {
        failed = true
    }
    // A log folded straight from its columns must come out the same wherever next succeeds.
    guard stream is LogReader, let reader = try? LogReader(path: path) else { return 0 }
    var direct = Projector()
    var directIDs = Identifiers()
    var directError: String?
    do {
        try reader.fold(into: &direct, ids: &directIDs)
        if !failed && (direct.reports != projector.reports || !sameNames(directIDs, ids)) {
            fatalError("the direct fold and the fold of next's events differ")
        }
    } catch {
        directError = "\(error)"
        if !failed { fatalError("the direct fold failed where next did not: \(error)") }
    }
    // On two threads a worker decodes the columns while this thread folds: the same reports, or the same error.
    if let paired = try? LogReader(path: path, options: ReadOptions(threads: 2)) {
        var twoThreads = Projector()
        var twoThreadsIDs = Identifiers()
        do {
            try paired.fold(into: &twoThreads, ids: &twoThreadsIDs)
            if let directError { fatalError("the fold on two threads succeeded where the fold on one failed: \(directError)") }
            if twoThreads.reports != direct.reports || !sameNames(twoThreadsIDs, directIDs) {
                fatalError("the fold on two threads and the fold on one differ")
            }
        } catch {
            if "\(error)" != directError { fatalError("the fold on two threads failed otherwise than on one: \(error)") }
        }
    }
    // And so must a fold split into parts, each on its own thread.
    guard let split = try? LogReader(path: path) else { return 0 }
    var splitIDs = Identifiers()
    do {
        let reports = try split.foldPartitioned(parts: 1 + size % 3, zone: .utc, ids: &splitIDs)
        if !failed && (reports != projector.reports || !sameNames(splitIDs, ids)) {
            fatalError("the fold in parts and the fold of next's events differ")
        }
    } catch {
        if !failed { fatalError("the fold in parts failed where next did not: \(error)") }
    }
    // Read as verify reads it, on one thread and with two workers that check ahead: the same findings.
    if verified(path, threads: 1) != verified(path, threads: 2) {
        fatalError("verify's reading on two workers and on one thread differ")
    }
    // Exported on one thread, and by two workers that spell each batch's ids from the batch alone:
    // the same text, and the same error if one fails; and the same text where damage is skipped.
    for skipping in [false, true] where exported(path, threads: 1, skipping: skipping) != exported(path, threads: 2, skipping: skipping) {
        fatalError("export on two workers and on one thread differ (skipping damage: \(skipping))")
    }
    return 0
}

/// What `orders export` writes of the log at `path` on `threads`, and its error if it fails.
private func exported(_ path: String, threads: Int, skipping: Bool) -> (text: [UInt8], error: String?) {
    var text: [UInt8] = []
    do {
        let reader = try LogReader(path: path, options: ReadOptions(skippingCorrupt: skipping, threads: threads, callerMostlyWaits: true))
        var ids = Identifiers()
        while try reader.nextText(ids: &ids, into: &text) != nil {}
        return (text, nil)
    } catch {
        return (text, "\(error)")
    }
}

/// What `orders verify` finds in a log: the damage it passes over, the
/// events it reads, and any id spelled under two numbers, by role.
private struct Findings: Equatable {
    var skips: [LogReader.Skip]
    var events: [Event]
    var twice: [[UInt32]]
}

/// What `orders verify` finds in the log at `path`, on `threads`.
private func verified(_ path: String, threads: Int) -> Findings? {
    guard
        let reader = try? LogReader(
            path: path, options: ReadOptions(skippingCorrupt: true, threads: threads, checkingSpellings: true, callerMostlyWaits: true))
    else {
        return nil
    }
    var ids = Identifiers()
    var events: [Event] = [], chunk: [Event] = []
    do {
        while try reader.next(ids: &ids, into: &chunk) != nil { events += chunk }
    } catch {
        fatalError("a reading that skips damage failed: \(error)")
    }
    let twice = Role.allCases.map { role in ids[role].firstDuplicate().map { [$0.rawValue, $1.rawValue] } ?? [] }
    // Searched in parts, as verify searches a large table, each role's first pair is the same.
    for role in Role.allCases {
        for parts in 2...3 {
            let found = (0..<parts).compactMap { ids[role].firstDuplicate(part: $0, of: parts) }.min { $0.1 < $1.1 }
            let pair = found.map { [$0.rawValue, $1.rawValue] } ?? []
            if pair != twice[role.rawValue] { fatalError("\(role.field) in \(parts) parts: \(pair), whole: \(twice[role.rawValue])") }
        }
    }
    return Findings(skips: reader.passedOver, events: events, twice: twice)
}

/// Whether a fold spelled out the ids that reports name as reading every event did.
private func sameNames(_ folded: Identifiers, _ read: Identifiers) -> Bool {
    LogReader.reportedRoles.allSatisfy { role in
        folded[role].count == read[role].count
            && (0..<read[role].count).allSatisfy { folded[role][Symbol(rawValue: UInt32($0))] == read[role][Symbol(rawValue: UInt32($0))] }
    }
}
