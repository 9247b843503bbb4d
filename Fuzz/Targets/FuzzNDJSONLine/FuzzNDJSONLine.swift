import OrdersCore
import OrdersLog

/// One NDJSON line through the parser: it must return an event, nil, or a
/// failure naming the problem; never crash, hang or allocate without bound.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNDJSONLine(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var parser = NDJSONParser()
    var symbols = SymbolTable()
    let line = UnsafeRawBufferPointer(start: data, count: size)
    if let event = try? parser.parse(line, symbols: &symbols) {
        // What parses must print and parse back to the same event.
        var text: [UInt8] = []
        EventJSON.appendLine(seq: nil, event: event, symbols: symbols, to: &text)
        text.removeLast()
        var again = SymbolTable()
        var reparser = NDJSONParser()
        guard let round = text.withUnsafeBytes({ try? reparser.parse($0, symbols: &again) }) else {
            fatalError("a printed event did not parse: \(String(decoding: text, as: UTF8.self))")
        }
        var reprinted: [UInt8] = []
        EventJSON.appendLine(seq: nil, event: round, symbols: again, to: &reprinted)
        guard reprinted.dropLast() == text[...] else { fatalError("an event changed when printed and read back") }
    }
    return 0
}
