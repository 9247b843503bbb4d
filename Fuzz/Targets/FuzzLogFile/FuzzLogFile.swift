import Glibc
import OrdersCore
import OrdersLog

/// A whole file through format detection and every reader (log, NDJSON,
/// zstd): it is written to a file in /dev/shm and read to the end, and a
/// log is folded three ways that must agree.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLogFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let path = "/dev/shm/orders-fuzz-\(getpid())"
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return 0 }
    _ = write(fd, data, size)
    close(fd)
    defer { unlink(path) }
    guard let stream = try? openEvents(path) else { return 0 }
    var symbols = SymbolTable()
    var events: [Event] = []
    var projector = Projector()
    var failed = false
    do {
        while try stream.next(symbols: &symbols, into: &events) != nil {
            for event in events { projector.fold(event) }
            events.removeAll(keepingCapacity: true)
        }
    } catch {
        failed = true
    }
    // A log folded straight from its columns must come out the same, or fail as well.
    guard stream is LogReader, let reader = try? LogReader(path: path) else { return 0 }
    var direct = Projector()
    var directSymbols = SymbolTable()
    do {
        try reader.fold(into: &direct, symbols: &directSymbols)
        if failed || direct.reports != projector.reports || directSymbols.count != symbols.count {
            fatalError("the direct fold and the fold of next's events differ")
        }
    } catch {
        if !failed { fatalError("the direct fold failed where next did not: \(error)") }
    }
    // And so must a fold split into parts, each on its own thread.
    guard let split = try? LogReader(path: path) else { return 0 }
    var splitSymbols = SymbolTable()
    do {
        let reports = try split.foldPartitioned(parts: 1 + size % 3, zone: .utc, symbols: &splitSymbols)
        if failed || reports != projector.reports || splitSymbols.count != symbols.count {
            fatalError("the fold in parts and the fold of next's events differ")
        }
    } catch {
        if !failed { fatalError("the fold in parts failed where next did not: \(error)") }
    }
    return 0
}
