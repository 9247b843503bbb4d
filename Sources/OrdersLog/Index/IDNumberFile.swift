import OrdersCore
import OrdersFormat

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Each id's number, on disk beside the log (`LOG.idnumbers`): so that a
/// server holds in memory the ids of the roles its reports name and those
/// of the batches after the file, not every cart, order and voter the log
/// ever named. Those are placeholders in its tables, given their bytes
/// when a request names them (``LogStore``). Sorted runs keyed by the
/// role's byte and the id (``SortedRunFile``), derived as the event-id file is.
final class IDNumberFile {
    /// The roles held whole, read from the file at each open: few, and the
    /// reports name them (a snapshot keeps the same).
    static let heldWhole: [Role] = [.product, .poll, .candidate]
    /// The roles whose older ids stay in the file until a request names one.
    static let filed: [Role] = [.cart, .order, .voter]

    let file: SortedRunFile
    var path: String { file.path }

    private init(file: SortedRunFile) { self.file = file }

    /// The file's key for `id` of `role`.
    static func key(_ id: UnsafeRawBufferPointer, of role: Role) -> [UInt8] { [UInt8(role.rawValue)] + id }

    /// The file of `log` and the log's ids as a store holds them: the roles
    /// ``heldWhole`` read from the file, the others placeholders, and every
    /// id of the batches after the file's point. A file that is missing or
    /// not of the log is built first, from the batches' dictionaries a group
    /// at a time; a tail of ``SortedRunFile/leastRun`` ids or more is added
    /// to it as a run; a damaged one is removed and built again. Nil if the log names no id.
    /// - Parameter batches: the log's committed batches.
    /// - Throws: for a batch of the log that cannot be read.
    static func open(log: String, batches: ArraySlice<LogLayout.Batch>, threads: Int) throws -> (file: IDNumberFile, ids: Identifiers)? {
        do {
            return try opened(log: log, batches: batches, threads: threads)
        } catch is SortedRunFile.Damaged {
            unlink(SortedRunFile.Kind.idNumbers.path(of: log))
            return try opened(log: log, batches: batches, threads: threads)
        }
    }

    private static func opened(log: String, batches: ArraySlice<LogLayout.Batch>, threads: Int) throws -> (
        file: IDNumberFile, ids: Identifiers
    )? {
        var sorted: SortedRunFile
        if let found = SortedRunFile.open(log: log, kind: .idNumbers, batches: batches) {
            sorted = found
        } else {
            let reader = try LogReader(path: log, options: ReadOptions(threads: threads))
            let built = try SortedRunFile.build(log: log, kind: .idNumbers, batches: batches) { group in
                try numbered(by: reader, to: group.endIndex) { _, _, _ in }
            }
            guard let built else { return nil }
            sorted = built
        }
        let covered = sorted.point.batchCount
        guard covered > 0 else { throw damaged(sorted, "it covers no batch") }
        let reader = try LogReader(path: log, options: ReadOptions(threads: threads))
        let counts = try reader.readNewIDs(from: covered - 1, to: covered) { _, _, _ in }
        var ids = Identifiers()
        for role in heldWhole {
            try sorted.forEachEntry(startingWith: [UInt8(role.rawValue)]) { key, number, check in
                guard check == 0, key.count > 1, let n = Int(exactly: number), (0..<counts[role.rawValue]).contains(n),
                    case .added = key.dropFirst().withUnsafeBytes({ ids[role].define(n, $0) })
                else { throw damaged(sorted, "its \(role.field) id number \(number) is not one of the log's") }
            }
            let table = ids[role]
            guard table.count == counts[role.rawValue],
                !(0..<table.count).contains(where: { table.isPlaceholder(Symbol(rawValue: UInt32($0))) })
            else { throw damaged(sorted, "it lacks some of the log's \(role.field) ids") }
        }
        for role in filed { ids[role] = SymbolTable(placeholders: counts[role.rawValue]) }
        let tail = try numbered(by: reader, to: batches.endIndex) { role, number, bytes in _ = ids[role].define(number, bytes) }
        for role in Role.allCases {
            ids[role].extend(to: reader.idCounts[role.rawValue])
            ids[role].indexAll()
        }
        // A small tail stays in memory, so that runs do not pile up one a restart.
        if tail.count >= SortedRunFile.leastRun, let extended = try? sorted.extended(with: tail, to: batches) { sorted = extended }
        return (IDNumberFile(file: sorted), ids)
    }

    /// The new ids of the batches `reader` reads next, up to `end`, keyed as
    /// the file keys them with their numbers; each also told to `body`.
    /// - Throws: ``InputError`` for a log that spells one id at two numbers, which no file can hold.
    private static func numbered(
        by reader: LogReader, to end: Int, _ body: (Role, Int, UnsafeRawBufferPointer) -> Void
    ) throws -> EventIDIndex {
        let index = EventIDIndex()
        var twice: (Role, Int)?
        _ = try reader.readNewIDs(to: end) { role, number, bytes in
            body(role, number, bytes)
            if case .new = index.record(id: key(bytes, of: role), seq: Int64(number), fingerprint: 0) { return }
            twice = twice ?? (role, number)
        }
        if let (role, number) = twice {
            // The log's fault, not the file's: no file is built, and the server reads every id instead.
            throw InputError(
                file: reader.name, message: "\(role.field) id number \(number) spells an id an earlier number has", code: .corruptLog)
        }
        return index
    }

    private static func damaged(_ file: SortedRunFile, _ what: String) -> SortedRunFile.Damaged {
        SortedRunFile.Damaged(path: file.path, what: what)
    }

    /// The log's number for `id` as a `role`, if the file holds it.
    /// - Throws: ``SortedRunFile/Damaged`` for a block that fails its CRC, or an entry no writer of the file wrote.
    func number(of id: UnsafeRawBufferPointer, as role: Role) throws -> Int? {
        guard let (number, check) = try file.lookUp(Self.key(id, of: role)) else { return nil }
        guard check == 0, let n = Int(exactly: number), n >= 0 else {
            throw Self.damaged(file, "its entry for a \(role.field) id holds \(number) and \(check)")
        }
        return n
    }

    /// Removes the file, which is no longer to be trusted: the next open builds it again.
    func remove() { file.remove() }
}
