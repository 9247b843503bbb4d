import Testing

@testable import OrdersClient

@Suite("Server-Sent Events, parsed as their bytes arrive")
struct ServerSentEventsTests {
    @Test func eventsSplitAnywhereAreParsedTheSame() {
        let text = Array(": a comment\nid: 7\ndata: {\"seq\": 7}\n\nid: 8\r\ndata: {\"seq\": 8}\r\n\r\nretry: 5\n\nid: 9\ndata:{}\n\n".utf8)
        let expected = [LiveEvent(seq: 7, line: #"{"seq": 7}"#), LiveEvent(seq: 8, line: #"{"seq": 8}"#), LiveEvent(seq: 9, line: "{}")]
        for size in 1...text.count {
            var parser = ServerSentEvents()
            var events: [LiveEvent] = []
            var start = 0
            while start < text.count {
                events += parser.parse(text[start..<min(start + size, text.count)])
                start += size
            }
            #expect(events == expected, "in pieces of \(size)")
        }
    }
}
