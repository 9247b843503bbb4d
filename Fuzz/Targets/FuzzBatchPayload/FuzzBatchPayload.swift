import OrdersCore
import OrdersLog

/// One batch payload (what a zstd frame of the log holds) through the decoder.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBatchPayload(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var ids = Identifiers()
    var events: [Event] = []
    _ = try? BatchPayload.decode(UnsafeRawBufferPointer(start: data, count: size), ids: &ids, into: &events)
    return 0
}
