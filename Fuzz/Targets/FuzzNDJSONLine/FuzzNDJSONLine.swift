import OrdersCore
import OrdersLog

/// One NDJSON line through the parser: it must return an event, nil, or a
/// failure naming the problem; never crash, hang or allocate without bound.
/// The fast path for canonical lines must agree with the general parser.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNDJSONLine(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var parser = NDJSONParser()
    var ids = Identifiers()
    let line = UnsafeRawBufferPointer(start: data, count: size)
    let result = Result { () throws(NDJSONParser.Failure) in try parser.parse(line, ids: &ids) }
    var general = NDJSONParser(fastPath: false)
    var generalIDs = Identifiers()
    let generalResult = Result { () throws(NDJSONParser.Failure) in try general.parse(line, ids: &generalIDs) }
    guard result == generalResult, Role.allCases.allSatisfy({ role in
        ids[role].count == generalIDs[role].count
            && (0..<ids[role].count).allSatisfy { ids[role][Symbol(rawValue: UInt32($0))] == generalIDs[role][Symbol(rawValue: UInt32($0))] }
    })
    else { fatalError("the fast path and the general parser disagree") }
    if case .success(let event?) = result {
        // What parses must print and parse back to the same event.
        var text: [UInt8] = []
        EventJSON.appendLine(seq: nil, event: event, ids: ids, to: &text)
        text.removeLast()
        var again = Identifiers()
        var reparser = NDJSONParser()
        guard let round = text.withUnsafeBytes({ try? reparser.parse($0, ids: &again) }) else {
            fatalError("a printed event did not parse: \(String(decoding: text, as: UTF8.self))")
        }
        var reprinted: [UInt8] = []
        EventJSON.appendLine(seq: nil, event: round, ids: again, to: &reprinted)
        guard reprinted.dropLast() == text[...] else { fatalError("an event changed when printed and read back") }
    }
    return 0
}
