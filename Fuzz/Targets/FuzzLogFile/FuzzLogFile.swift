import Glibc
import OrdersCore
import OrdersLog

/// A whole file through format detection and every reader (log, NDJSON,
/// zstd): it is written to a file in /dev/shm and read to the end.
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
    while (try? stream.next(symbols: &symbols, into: &events)) ?? nil != nil {
        events.removeAll(keepingCapacity: true)
    }
    return 0
}
