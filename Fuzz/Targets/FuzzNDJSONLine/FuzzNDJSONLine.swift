import OrdersCore
import OrdersLog

/// One NDJSON line through the parser: it must return an event, nil, or a
/// failure naming the problem; never crash, hang or allocate without bound.
/// The fast path for canonical lines must agree with the general parser,
/// read first or after a line that leaves it remembering a date.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNDJSONLine(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var parser = NDJSONParser()
    var ids = Identifiers()
    let line = UnsafeRawBufferPointer(start: data, count: size)
    let result = Result { () throws(NDJSONParser.Failure) in try parser.parse(line, ids: &ids) }
    var general = NDJSONParser(fastPath: false)
    var generalIDs = Identifiers()
    let generalResult = Result { () throws(NDJSONParser.Failure) in try general.parse(line, ids: &generalIDs) }
    guard result == generalResult, sameIDs(ids, generalIDs) else { fatalError("the fast path and the general parser disagree") }
    var primed = NDJSONParser(), primerIDs = Identifiers(), primedIDs = Identifiers()
    _ = primer.withUnsafeBytes { try? primed.parse($0, ids: &primerIDs) }
    let primedResult = Result { () throws(NDJSONParser.Failure) in try primed.parse(line, ids: &primedIDs) }
    guard primedResult == generalResult, sameIDs(primedIDs, generalIDs) else {
        fatalError("the fast path, remembering a date, and the general parser disagree")
    }
    // Read at the start of a chunk's text, the fast path must end the line
    // at its first newline and read it as the general parser reads it alone.
    var chunked = NDJSONParser(), chunkedIDs = Identifiers()
    let text = Array(line) + [0x0A] + primer
    if let (event, next) = text.withUnsafeBytes({ chunked.parseCanonical($0, ids: &chunkedIDs) }) {
        let end = text.firstIndex(of: 0x0A)!
        var alone = NDJSONParser(fastPath: false), aloneIDs = Identifiers()
        let aloneResult = text[..<end].withUnsafeBytes { bytes in
            Result { () throws(NDJSONParser.Failure) in try alone.parse(bytes, ids: &aloneIDs) }
        }
        guard next == end + 1, aloneResult == .success(event), sameIDs(chunkedIDs, aloneIDs) else {
            fatalError("the fast path read a line at the start of a text other than the general parser reads it")
        }
    }
    if case .success(let event?) = result { roundTrip(event, record: parser.record, ids: ids, keepingUnknown: false) }
    // Kept with --keep-unknown, a line of another type must round-trip too, its record whole.
    var keeping = NDJSONParser(keepsUnknownTypes: true), keptIDs = Identifiers()
    if case .success(let event?) = Result(catching: { () throws(NDJSONParser.Failure) in try keeping.parse(line, ids: &keptIDs) }) {
        roundTrip(event, record: keeping.record, ids: keptIDs, keepingUnknown: true)
    }
    return 0
}

/// What parses must print (with its id, type and extras) and parse back to
/// the same event and record, fingerprint included, and print the same again.
private func roundTrip(_ event: Event, record: EventRecord?, ids: Identifiers, keepingUnknown: Bool) {
    var text: [UInt8] = []
    EventJSON.appendLine(seq: nil, event: event, record: record, ids: ids, to: &text)
    text.removeLast()
    var again = Identifiers()
    var reparser = NDJSONParser(keepsUnknownTypes: keepingUnknown)
    guard let round = text.withUnsafeBytes({ try? reparser.parse($0, ids: &again) }) else {
        fatalError("a printed event did not parse: \(String(decoding: text, as: UTF8.self))")
    }
    guard reparser.record == record else { fatalError("a record changed when printed and read back") }
    var reprinted: [UInt8] = []
    EventJSON.appendLine(seq: nil, event: round, record: reparser.record, ids: again, to: &reprinted)
    guard reprinted.dropLast() == text[...] else { fatalError("an event changed when printed and read back") }
}

/// A line of the fast path's shape on the date most of the corpus has.
private let primer = Array(#"{"type":"item_removed","at":"2025-09-16T00:00:00.000Z","cart":"c","product":"p"}"#.utf8)

/// Whether both hold the same ids, numbered alike.
private func sameIDs(_ ids: Identifiers, _ other: Identifiers) -> Bool {
    Role.allCases.allSatisfy { role in
        ids[role].count == other[role].count
            && (0..<ids[role].count).allSatisfy { ids[role][Symbol(rawValue: UInt32($0))] == other[role][Symbol(rawValue: UInt32($0))] }
    }
}
