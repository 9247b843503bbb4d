import OrdersCore
import OrdersFormat
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `orders verify` finds of a file of sorted runs beside a log (``SortedRunFile``).
public enum SortedRunFileState: Equatable, Sendable {
    /// None: the next writer that needs it builds it.
    case absent
    /// There, but not of the log as it is (another log's, one the log was cut below, or cut short): the next writer builds it again.
    case stale
    /// Every entry checked against the log's ids.
    case sound(ids: Int, batches: Int, runs: Int)
    /// Its entries are not the log's: what is wrong. The next writer that meets it builds it again.
    case damaged(String)
}

/// Checks the event-id file beside `log` against `index`, every event id of the log, reading it only.
public func checkEventIDFile(of log: String, against index: EventIDIndex) throws -> SortedRunFileState {
    try check(.eventIDs, of: log) { file in try file.check(against: index) { $0 < file.point.endSeq } }
}

/// Checks the id-number file beside `log` against `ids`, every id of the
/// log, reading it only: it must hold each id of the batches it covers at its number, and no other.
public func checkIDNumberFile(of log: String, against ids: Identifiers) throws -> SortedRunFileState {
    try check(.idNumbers, of: log) { file in
        let covered = file.point.batchCount
        guard covered > 0 else { return "it covers no batch" }
        let counts = try LogReader(path: log).readNewIDs(from: covered - 1, to: covered) { _, _, _ in }
        let index = EventIDIndex()
        for role in Role.allCases {
            for number in 0..<min(counts[role.rawValue], ids[role].count) {
                let key = ids[role].withBytes(of: Symbol(rawValue: UInt32(number))) { IDNumberFile.key($0, of: role) }
                // The log's own check says if it spells an id twice.
                _ = index.record(id: key, seq: Int64(number), fingerprint: 0)
            }
        }
        return try file.check(against: index) { _ in true }
    }
}

/// The state of the file of `kind` beside `log`, `check` saying what is wrong with one that opens.
private func check(_ kind: SortedRunFile.Kind, of log: String, _ check: (SortedRunFile) throws -> String?) throws -> SortedRunFileState {
    guard access(kind.path(of: log), F_OK) == 0 else { return .absent }
    let descriptor = try FileDescriptor.openInput(log)
    defer { try? descriptor.close() }
    let batches = try LogLayout.scan(descriptor, path: log).batches
    guard let file = SortedRunFile.open(log: log, kind: kind, batches: batches[...], reading: true) else { return .stale }
    do {
        return try check(file).map { .damaged($0) } ?? .sound(ids: file.count, batches: file.point.batchCount, runs: file.runCount)
    } catch {
        return .damaged("\(error)")
    }
}
