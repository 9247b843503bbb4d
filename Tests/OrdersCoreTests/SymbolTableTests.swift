import OrdersCore
import Testing

@Suite("Interning identifiers")
struct SymbolTableTests {
    @Test func theSameBytesGiveTheSameSymbol() {
        var table = SymbolTable()
        let a = table.intern(Array("kiosk-1".utf8))
        #expect(table.intern(Array("kiosk-1".utf8)) == a)
        #expect(table.intern(Array("kiosk-2".utf8)) != a)
        #expect(Array(table[a]) == Array("kiosk-1".utf8))
        #expect(table.lookup(Array("kiosk-1".utf8)) == a)
        #expect(table.lookup(Array("nope".utf8)) == nil)
    }

    @Test func manySymbolsSurviveGrowth() {
        var table = SymbolTable()
        let symbols = (0..<50_000).map { table.intern(Array("id-\($0)".utf8)) }
        #expect(Set(symbols).count == 50_000)
        for (i, symbol) in symbols.enumerated() where i % 997 == 0 {
            #expect(table.lookup(Array("id-\(i)".utf8)) == symbol)
            #expect(Array(table[symbol]) == Array("id-\(i)".utf8))
        }
    }

    @Test func bytesThatDifferOnlyPastEightAreDifferent() {
        var table = SymbolTable()
        let a = table.intern(Array("abcdefgh-1".utf8)), b = table.intern(Array("abcdefgh-2".utf8))
        #expect(a != b)
        #expect(table.intern([0]) != table.intern([0, 0]))
    }
}
