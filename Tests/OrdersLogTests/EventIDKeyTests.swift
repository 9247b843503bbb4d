import Testing

@testable import OrdersLog

@Suite("How the event-id file keeps an id")
struct EventIDKeyTests {
    @Test func aCanonicalUUIDIsKeptAsItsSixteenBytesAndSpelledBack() {
        let id = Array("0199f6fc-901b-787b-a6be-cedcc8341af9".utf8)
        let key = EventIDKey.key(id)
        #expect(key == [0xFF, 0x01, 0x99, 0xF6, 0xFC, 0x90, 0x1B, 0x78, 0x7B, 0xA6, 0xBE, 0xCE, 0xDC, 0xC8, 0x34, 0x1A, 0xF9])
        #expect(EventIDKey.id(key) == id)
    }

    /// Another spelling of the same UUID is another id: kept as it is, so that it gives back its own spelling.
    @Test func anyOtherIdIsKeptAsItIs() {
        for text in [
            "0199F6FC-901B-787B-A6BE-CEDCC8341AF9", "0199f6fc901b787ba6becedcc8341af9", "0199f6fc-901b-787b-a6be-cedcc8341af", "evt-1",
            "0199f6fc-901b-787b-a6be-cedcc8341afg", "0199f6fc_901b-787b-a6be-cedcc8341af9", "{199f6fc-901b-787b-a6be-cedcc8341af}",
        ] {
            let id = Array(text.utf8)
            #expect(EventIDKey.key(id) == id, "\(text)")
            #expect(EventIDKey.id(EventIDKey.key(id)) == id, "\(text)")
        }
        // 17 bytes of text never start with 0xFF: UTF-8 has no such byte.
        let seventeen = Array("abcdefghijklmnopq".utf8)
        #expect(EventIDKey.id(seventeen) == seventeen)
    }
}
