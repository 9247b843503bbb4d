import Testing

@testable import OrdersCore

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
        table._checkInvariants()
        table.removeSymbols(from: 20_000)
        table._checkInvariants()
        #expect(table.lookup(Array("id-19999".utf8)) == symbols[19_999] && table.lookup(Array("id-20000".utf8)) == nil)
        for (i, symbol) in symbols.enumerated() where i % 997 == 0 && i < 20_000 {
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

    /// Hashing and comparing read an id's last bytes in overlapping loads:
    /// a byte changed anywhere, in an id of any length from 1 to 40, changes
    /// its hash and makes it unequal, and the table gives it a symbol of its own.
    @Test func aByteChangedAtAnyPlaceOfAnyLengthMakesAnotherId() {
        // A fixed seed, so that the hashes compared are the same every run.
        var table = SymbolTable(seed: 0x9E37_79B9_7F4A_7C15)
        var symbols = Set<Symbol>()
        for length in 1...40 {
            let id = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            let variants =
                [id]
                + (0..<length).map { place in
                    var changed = id
                    changed[place] ^= 0x20
                    return changed
                }
            // Each alone in its buffer, so that a read past its end is caught by ASan.
            let hashes = variants.map { $0.withUnsafeBytes { table.hash32($0) } }
            #expect(Set(hashes).count == variants.count, "length \(length)")
            for changed in variants.dropFirst() {
                let equal = id.withUnsafeBytes { a in changed.withUnsafeBytes { b in memoryEquals(a.baseAddress!, b.baseAddress!, length) }
                }
                #expect(!equal, "\(changed)")
            }
            #expect(id.withUnsafeBytes { a in Array(id).withUnsafeBytes { b in memoryEquals(a.baseAddress!, b.baseAddress!, length) } })
            for variant in variants { symbols.insert(variant.withUnsafeBytes { table.intern($0) }) }
        }
        #expect(symbols.count == table.count)
        #expect(table.count == (1...40).reduce(0) { $0 + $1 + 1 })
    }

    /// Ids chosen to collide under a seed known in advance, all hashed alike
    /// there, spread under a table's own seed, which each table picks at
    /// random: input cannot choose ids that flood its index.
    @Test func idsChosenToCollideUnderOneSeedSpreadUnderAnother() {
        let known = SymbolTable(seed: 0)
        let ids = (0..<64).map { Self.id(hashing: 0x1234_5678, seed: 0, variant: UInt64($0)) }
        #expect(Set(ids.map { id in id.withUnsafeBytes { known.hash32($0) } }) == [0x1234_5678])
        let fresh = SymbolTable()
        #expect(fresh.seed != SymbolTable().seed)
        #expect(Set(ids.map { id in id.withUnsafeBytes { fresh.hash32($0) } }).count > 60)
        var table = SymbolTable()
        #expect(Set(ids.map { id in id.withUnsafeBytes { table.intern($0) } }).count == 64)
    }

    /// The `variant`th 8-byte id that `hash32` under `seed` maps to `hash`:
    /// its avalanche run backwards, each step of it invertible.
    static func id(hashing hash: UInt32, seed: UInt64, variant: UInt64) -> [UInt8] {
        func inverse(_ a: UInt64) -> UInt64 {
            var x = a
            for _ in 0..<6 { x &*= 2 &- a &* x }  // Newton's iteration, modulo 2^64
            return x
        }
        var y = variant << 32 | UInt64(hash)
        y ^= y >> 33
        y &*= inverse(0xC4CE_B9FE_1A85_EC53)
        y ^= y >> 33
        y &*= inverse(0xFF51_AFD7_ED55_8CCD)
        y ^= y >> 33
        let word = y ^ seed ^ 8 ^ 0xFF51_AFD7_ED55_8CCD
        return (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
    }

    /// A table built apart joins another exactly as its ids interned one by
    /// one would: old ids found, new ones numbered in order, through the
    /// index's growth, with a spelling repeated under two numbers, and with
    /// defined numbers the index has not seen yet.
    @Test(arguments: [0, 1, 2])
    func aTableJoinsAnotherAsItsIdsInternedOneByOne(seed: UInt64) {
        var state = seed &+ 11
        func next(_ bound: UInt64) -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (state >> 33) % bound
        }
        var joined = SymbolTable()
        for _ in 0..<2_000 { _ = joined.intern(Array("id-\(next(5_000))".utf8)) }
        let firstDefined = joined.count
        for number in firstDefined..<firstDefined + 100 {
            _ = Array("defined-\(number)".utf8).withUnsafeBytes { joined.define(number, $0) }
        }
        var oneByOne = joined
        var apart = SymbolTable()
        for _ in 0..<20_000 {
            let id = next(4) == 0 ? "defined-\(firstDefined + Int(next(150)))" : "id-\(next(40_000))"
            _ = apart.intern(Array(id.utf8))
        }
        _ = Array("id-7".utf8).withUnsafeBytes { apart.define(apart.count, $0) }
        let expected = (0..<apart.count).map { local in
            apart.withBytes(of: Symbol(rawValue: UInt32(local))) { oneByOne.intern($0) }
        }
        let renumber = joined.intern(contentsOf: apart)
        #expect(renumber.count == expected.count)
        #expect(renumber.indices.first { renumber[$0] != expected[$0] } == nil, "the first id numbered differently")
        #expect(joined.count == oneByOne.count)
        joined._checkInvariants()
        oneByOne._checkInvariants()
        apart._checkInvariants()
        for number in 0..<joined.count {
            let symbol = Symbol(rawValue: UInt32(number))
            #expect(joined[symbol] == oneByOne[symbol])
        }
    }
}

@Suite("Symbols numbered elsewhere")
struct SymbolDefinitionTests {
    private func define(_ table: inout SymbolTable, _ number: Int, _ text: String) -> SymbolTable.Definition {
        Array(text.utf8).withUnsafeBytes { table.define(number, $0) }
    }

    @Test func definedNumbersKeepTheirBytesAndRefuseOthers() {
        var table = SymbolTable()
        #expect(define(&table, 0, "kiosk-1") == .added)
        #expect(define(&table, 1, "order-9") == .added)
        #expect(define(&table, 0, "kiosk-1") == .same)
        #expect(define(&table, 0, "kiosk-2") == .conflicting)
        #expect(Array(table[Symbol(rawValue: 1)]) == Array("order-9".utf8))
    }

    @Test func aGapBecomesPlaceholdersThatFillLater() {
        var table = SymbolTable()
        #expect(define(&table, 3, "d") == .added)
        #expect(table.count == 4)
        #expect(table.isPlaceholder(Symbol(rawValue: 1)))
        #expect(define(&table, 1, "b") == .added)
        #expect(!table.isPlaceholder(Symbol(rawValue: 1)))
        #expect(Array(table[Symbol(rawValue: 1)]) == Array("b".utf8))
        #expect(Array(table[Symbol(rawValue: 3)]) == Array("d".utf8))
    }

    @Test func internAfterDefineFindsTheDefinedNumbers() {
        var table = SymbolTable()
        for i in 0..<5_000 { _ = define(&table, i, "id-\(i)") }
        #expect(table.intern(Array("id-4321".utf8)) == Symbol(rawValue: 4321))
        #expect(table.lookup(Array("id-17".utf8)) == Symbol(rawValue: 17))
        #expect(table.intern(Array("new".utf8)) == Symbol(rawValue: 5_000))
    }

    /// A table a log's numbers define has no hash index: one id is searched
    /// for by its bytes as the table grows, from where the last search ended.
    @Test func anIdIsFoundAmongDefinedNumbersFromAGivenNumberOn() {
        var table = SymbolTable()
        for (number, text) in ["kiosk-1", "kiosk-10", "k"].enumerated() { _ = define(&table, number, text) }
        let kiosk10 = Array("kiosk-10".utf8)
        #expect(table.firstSymbol(spelled: kiosk10, from: 0) == Symbol(rawValue: 1))
        #expect(table.firstSymbol(spelled: kiosk10, from: 1) == Symbol(rawValue: 1))
        #expect(table.firstSymbol(spelled: kiosk10, from: 2) == nil)
        #expect(table.firstSymbol(spelled: Array("k".utf8), from: 0) == Symbol(rawValue: 2))
        // Neither a prefix, nor the same length with the last byte changed, nor nothing.
        #expect(table.firstSymbol(spelled: Array("kiosk-".utf8), from: 0) == nil)
        #expect(table.firstSymbol(spelled: Array("kiosk-2".utf8), from: 0) == nil)
        #expect(table.firstSymbol(spelled: [], from: 0) == nil)
        // Placeholders spell nothing; a number defined after them is found.
        _ = define(&table, 5, "kiosk-2")
        #expect(table.firstSymbol(spelled: Array("kiosk-2".utf8), from: 3) == Symbol(rawValue: 5))
        #expect(table.firstSymbol(spelled: Array("kiosk-2".utf8), from: 6) == nil)
    }

    @Test func aSpellingUnderTwoNumbersIsFound() {
        var table = SymbolTable()
        _ = define(&table, 0, "a")
        _ = define(&table, 1, "b")
        #expect(table.firstDuplicate() == nil)
        _ = define(&table, 4, "a")
        let duplicate = table.firstDuplicate()
        #expect(duplicate?.0 == Symbol(rawValue: 0) && duplicate?.1 == Symbol(rawValue: 4))
    }

    /// Among thousands, interned (and so indexed) and defined, the first
    /// number spelled as an earlier one is found, with that earlier one.
    @Test func theFirstSpellingUnderTwoNumbersIsFoundAmongThousands() {
        var table = SymbolTable()
        for i in 0..<3_000 { _ = table.intern(Array("id-\(i)".utf8)) }
        for i in 3_000..<6_000 { _ = define(&table, i, "id-\(i)") }
        #expect(table.firstDuplicate() == nil)
        _ = define(&table, 6_000, "id-4321")
        _ = define(&table, 6_001, "id-1234")
        let duplicate = table.firstDuplicate()
        #expect(duplicate?.0 == Symbol(rawValue: 4321) && duplicate?.1 == Symbol(rawValue: 6_000))
    }

    /// Searched in parts, each part finds the first pair among its share
    /// of the hashes, and the pair whose second number comes first is the
    /// whole table's first; every part finds one when pairs are many, so
    /// the parts share the work. Placeholders, some filled late, and ids
    /// spelled three times are among them.
    @Test(arguments: [1, 2, 3, 4, 7])
    func theFirstDuplicateOfAllPartsIsTheTablesFirst(parts: Int) {
        for seed: UInt64 in 1...6 {
            var table = SymbolTable(seed: seed)
            var numbers = Array(0..<4_000)
            var state = seed
            // Every 8th number spells one of the numbers before it again, some twice.
            for number in numbers where number % 8 == 7 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                numbers[number] = numbers[Int((state >> 33) % UInt64(number))]
            }
            for number in numbers.indices where number % 97 != 5 { _ = define(&table, number, "id-\(numbers[number])") }
            for number in numbers.indices where number % 194 == 5 { _ = define(&table, number, "id-\(numbers[number])") }
            let whole = table.firstDuplicate()
            #expect(whole != nil)
            let found = (0..<parts).map { table.firstDuplicate(part: $0, of: parts) }
            #expect(found.allSatisfy { $0 != nil }, "seed \(seed): \(found)")
            #expect(Set(found.compactMap { $0?.1 }).count == parts, "each part searches a share of its own")
            for case let (first, second)? in found { #expect(table[first] == table[second] && first < second) }
            let earliest = found.compactMap { $0 }.min { $0.1 < $1.1 }
            #expect(earliest?.0 == whole?.0 && earliest?.1 == whole?.1, "seed \(seed)")
        }
    }

    /// Emptied, a table that grew numbers from 0 again, and finds none of
    /// the ids it held, though it keeps their memory.
    @Test func removingAllForgetsEverySymbolAndItsIndex() {
        var table = SymbolTable()
        for round in 0..<3 {
            let ids = (0..<3_000).map { Array("id-\($0 * (round + 1))".utf8) }
            for (number, id) in ids.enumerated() { #expect(table.intern(id) == Symbol(rawValue: UInt32(number))) }
            #expect(table.count == ids.count)
            table.removeAll()
            #expect(table.count == 0)
            #expect(table.lookup(ids[1]) == nil)
        }
    }

    @Test func removingSymbolsForgetsThemAndTheirIndex() {
        var table = SymbolTable()
        let a = table.intern(Array("a".utf8))
        _ = table.intern(Array("b".utf8))
        table.removeSymbols(from: 1)
        #expect(table.count == 1)
        #expect(table.lookup(Array("b".utf8)) == nil)
        #expect(table.intern(Array("a".utf8)) == a)
        #expect(table.intern(Array("c".utf8)) == Symbol(rawValue: 1))
        #expect(table.occupied == 2, "the index counts what it holds, not what it once held")
    }

    /// Forgetting the last symbols takes each out of the index where it sits
    /// (no rebuild): every symbol left is still found, through runs of
    /// probes that the removed ones sat in, and the storage ends where they began.
    @Test func forgettingTheLastSymbolsKeepsEveryOtherFindable() {
        var rng = SystemRandomNumberGenerator()
        var table = SymbolTable(seed: 42)
        var model: [[UInt8]] = []
        for round in 0..<200 {
            for _ in 0..<Int.random(in: 1...300, using: &rng) {
                let id = Array("id-\(round)-\(Int.random(in: 0..<1_000_000, using: &rng))".utf8)
                if table.lookup(id) == nil { model.append(id) }
                _ = table.intern(id)
            }
            let keep = Int.random(in: (model.count / 2 + 1)...model.count, using: &rng)
            let storageEnd = keep == 0 ? 0 : table.range(of: keep - 1).upperBound
            table.removeSymbols(from: keep)
            model.removeLast(model.count - keep)
            #expect(table.indexed == keep, "removed in place, not left for a rebuild")
            #expect(table.storage.count == storageEnd)
            table._checkInvariants()
        }
        for (i, id) in model.enumerated() { #expect(table.lookup(id) == Symbol(rawValue: UInt32(i))) }
    }

    /// The case where an entry must move back: two ids of one home at the
    /// index's last slot, the second wrapped to its first; when the index
    /// doubles, slots are taken in order, so the newer lands first, and
    /// forgetting it must move the older one back into its home.
    @Test func forgettingMovesBackAnEntryThatTheIndexGrowingPutBehindIt() {
        var table = SymbolTable(seed: 7)
        func id(_ n: Int) -> [UInt8] { Array("id-\(n)".utf8) }
        func hash(_ n: Int) -> Int { Int(id(n).withUnsafeBytes { table.hash32($0) }) }
        let candidates = Array(0..<200_000)
        let ends = candidates.filter { hash($0) & 255 == 255 }.prefix(2)
        let fillers = candidates.filter { (4..<120).contains(hash($0) & 127) }.prefix(80)
        for n in fillers.prefix(50) { _ = table.intern(id(n)) }
        #expect(table.slots.count == 128)
        let older = table.intern(id(ends.first!))
        let newer = table.intern(id(ends.last!))
        for n in fillers.dropFirst(50) { _ = table.intern(id(n)) }
        #expect(table.slots.count == 256, "the index doubled after both were in")
        table.removeSymbols(from: newer.index)
        #expect(table.indexed == table.count, "removed in place")
        table._checkInvariants()
        #expect(table.lookup(id(ends.first!)) == older)
        #expect(table.lookup(id(ends.last!)) == nil)
    }

    /// Placeholders held as one count answer as those held a span each:
    /// the same numbers, spellings, lookups, duplicates and forgetting,
    /// in 8 bytes a number less.
    @Test func placeholdersAsOneCountAnswerAsASpanEach() {
        var dense = SymbolTable(), sparse = SymbolTable(placeholders: 100_000)
        dense.extend(to: 100_000)
        func both(_ body: (inout SymbolTable) -> Symbol?) {
            #expect(body(&dense) == body(&sparse))
        }
        for n in stride(from: 3, to: 100_000, by: 977) {
            both { table in
                _ = Array("old-\(n)".utf8).withUnsafeBytes { table.define(n, $0) }
                return nil
            }
        }
        both { $0.intern(Array("new-1".utf8)) }
        both { $0.lookup(Array("old-980".utf8)) }
        both { table in
            table.indexAll()
            return table.lookup(Array("old-3".utf8))
        }
        both { $0.intern(Array("old-1957".utf8)) }
        both { table in
            _ = Array("new-1".utf8).withUnsafeBytes { table.define(5, $0) }
            return table.firstDuplicate()?.0
        }
        #expect(dense.count == sparse.count && dense.spelledCount == sparse.spelledCount)
        #expect(dense.isPlaceholder(Symbol(rawValue: 4)) && sparse.isPlaceholder(Symbol(rawValue: 4)))
        #expect(Array(sparse[Symbol(rawValue: 980)]) == Array("old-980".utf8) && sparse[Symbol(rawValue: 4)].isEmpty)
        #expect(sparse.allocatedBytes + 100_000 * 8 <= dense.allocatedBytes)
        // Forgetting below the count, then growing again.
        both { table in
            table.removeSymbols(from: 50_000)
            table._checkInvariants()
            return table.lookup(Array("old-49830".utf8))
        }
        both { $0.lookup(Array("old-50807".utf8)) }
        both { $0.intern(Array("after".utf8)) }
        sparse._checkInvariants()
    }

    /// A placeholder given its bytes after later symbols puts bytes out of
    /// symbol order: forgetting then rebuilds, and keeps the placeholder's bytes.
    @Test func forgettingAfterAPlaceholderIsFilledKeepsItsBytes() {
        var table = SymbolTable()
        _ = Array("a".utf8).withUnsafeBytes { table.define(0, $0) }
        _ = Array("c".utf8).withUnsafeBytes { table.define(2, $0) }
        _ = Array("d".utf8).withUnsafeBytes { table.define(3, $0) }
        _ = Array("b".utf8).withUnsafeBytes { table.define(1, $0) }
        table.indexAll()
        table.removeSymbols(from: 3)
        table._checkInvariants()
        #expect(table.lookup(Array("b".utf8)) == Symbol(rawValue: 1))
        #expect(table.lookup(Array("d".utf8)) == nil)
        #expect(table.intern(Array("e".utf8)) == Symbol(rawValue: 3))
        #expect(Array(table[Symbol(rawValue: 1)]) == Array("b".utf8))
    }

    /// A store's table: the log's numbers placeholders, some given their
    /// bytes as requests name them, each request's new ids after. Forgetting
    /// a refused request's new ids keeps every placeholder filled before
    /// them, and costs what the request added: the index is not rebuilt.
    /// Either way of making the placeholders: a span each, or one count.
    @Test(arguments: [false, true])
    func forgettingARequestsNewIDsKeepsThePlaceholdersFilledBeforeThem(asOneCount: Bool) {
        var table = asOneCount ? SymbolTable(placeholders: 1000) : SymbolTable()
        table.extend(to: 1000)
        table.indexAll()
        _ = Array("old-7".utf8).withUnsafeBytes { table.define(7, $0) }
        let before = table.count
        #expect(table.intern(Array("new-1".utf8)) == Symbol(rawValue: 1000))
        _ = Array("old-3".utf8).withUnsafeBytes { table.define(3, $0) }
        #expect(table.intern(Array("new-2".utf8)) == Symbol(rawValue: 1001))
        // Filled after new-1: new-1's bytes are not the last, and forgetting must keep old-3's.
        table.removeSymbols(from: before)
        table._checkInvariants()
        #expect(table.count == 1000)
        #expect(table.lookup(Array("old-7".utf8)) == Symbol(rawValue: 7))
        #expect(table.lookup(Array("old-3".utf8)) == Symbol(rawValue: 3))
        #expect(table.lookup(Array("new-1".utf8)) == nil && table.lookup(Array("new-2".utf8)) == nil)
        table.indexAll()
        #expect(table.spelledCount == 2)
        // A request that fills then adds, refused: its fill stays, its new id goes, in place.
        let counts = table.count
        _ = Array("old-5".utf8).withUnsafeBytes { table.define(5, $0) }
        #expect(table.intern(Array("new-3".utf8)) == Symbol(rawValue: 1000))
        table.removeSymbols(from: counts)
        table._checkInvariants()
        #expect(table.lookup(Array("old-5".utf8)) == Symbol(rawValue: 5))
        #expect(table.intern(Array("new-4".utf8)) == Symbol(rawValue: 1000))
        #expect(Array(table[Symbol(rawValue: 5)]) == Array("old-5".utf8))
    }
}

@Suite("Dense maps")
struct DenseMapTests {
    private struct Key: PackedKey {
        var a: UInt64
        var b: UInt64
        var packed: (UInt64, UInt64) { (a, b) }
    }

    @Test func itAgreesWithADictionary() {
        var map = DenseMap<Key, Int>()
        var reference: [Key: Int] = [:]
        var state: UInt64 = 7
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1
            let key = Key(a: state >> 60, b: (state >> 20) & 0x3FF)
            map[key, default: 0] += 1
            reference[key, default: 0] += 1
        }
        #expect(map.count == reference.count)
        for (key, value) in reference { #expect(map[key] == value) }
        #expect(map[Key(a: 99, b: 99)] == nil)
    }

    /// Days and currencies chosen so that, under a seed known in advance,
    /// all start probing at one slot of 1,024, spread under a map's own
    /// seed, which each map picks at random.
    @Test func keysChosenToCollideUnderOneSeedSpreadUnderAnother() {
        var chosen: [DailySales.Key] = []
        var day: Int64 = 0
        while chosen.count < 100 {
            for code in ["KRW", "USD", "EUR", "JPY"] {
                let key = DailySales.Key(day: day, currency: Currency(code)!)
                if DenseMap<DailySales.Key, Int>.hash(key, seed: 0) & 1023 == 0 { chosen.append(key) }
            }
            day += 1
        }
        let fresh = DenseMap<DailySales.Key, Int>()
        #expect(fresh.seed != DenseMap<DailySales.Key, Int>().seed)
        #expect(Set(chosen.map { DenseMap<DailySales.Key, Int>.hash($0, seed: fresh.seed) & 1023 }).count > 80)
    }

    /// An owned map hands its entries to a dense map with their slots, not
    /// hashed again: every key is found with its value, and the map grows on.
    @Test func anOwnedMapBecomesADenseMapWithItsSlots() {
        var owned = OwnedMap<DailySales.Key, Int64>()
        var reference: [DailySales.Key: Int64] = [:]
        var state: UInt64 = 11
        for _ in 0..<30_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1
            let key = DailySales.Key(day: Int64(state >> 50), currency: Currency(["KRW", "USD", "EUR"][Int(state >> 20) % 3])!)
            owned[entry: owned.entry(for: key, empty: 0)] += 1
            reference[key, default: 0] += 1
        }
        var dense = owned.dense()
        #expect(dense.count == reference.count)
        for (key, value) in reference { #expect(dense[key] == value) }
        #expect(dense.keys.map { dense[$0]! } == dense.values, "entries in insertion order")
        for day in 100_000..<110_000 { dense[DailySales.Key(day: Int64(day), currency: Currency("JPY")!), default: 0] += 1 }
        #expect(dense.count == reference.count + 10_000)
        #expect(dense[DailySales.Key(day: 105_000, currency: Currency("JPY")!)] == 1)
        for (key, value) in reference { #expect(dense[key] == value) }
    }

    @Test func equalityIgnoresInsertionOrderAndMergeAdds() {
        var one = DenseMap<Key, Int>(), two = DenseMap<Key, Int>()
        one[Key(a: 1, b: 0), default: 0] = 5
        one[Key(a: 2, b: 0), default: 0] = 6
        two[Key(a: 2, b: 0), default: 0] = 6
        two[Key(a: 1, b: 0), default: 0] = 5
        #expect(one == two)
        #expect(one.hashValue == two.hashValue)
        one.merge(two) { $0 += $1 }
        #expect(one[Key(a: 1, b: 0)] == 10)
        let again = one.insert(Key(a: 1, b: 0), 0), fresh = one.insert(Key(a: 3, b: 0), 0)
        #expect(!again)
        #expect(fresh)
    }
}

@Suite("Filtering ids before a lookup")
struct SymbolFilterTests {
    /// Every id a table holds passes its filter, and few that it lacks do:
    /// at sixteen bits an id, about one in sixteen.
    @Test(arguments: [0, 1, 1_000, 100_000])
    func everyIdHeldPassesAndFewOthers(count: Int) {
        var table = SymbolTable()
        for i in 0..<count { _ = table.intern(Array("held-\(i)".utf8)) }
        let filter = SymbolFilter(table)
        for i in 0..<count {
            #expect(
                Array("held-\(i)".utf8).withUnsafeBytes { filter.mayContain($0) && filter.mayContain(bit: filter.fetchingBit(of: $0)) },
                "held-\(i)")
        }
        let passing = (0..<100_000).filter { i in Array("other-\(i)".utf8).withUnsafeBytes { filter.mayContain($0) } }.count
        #expect(passing < 10_000, "\(passing) of 100,000 ids the table lacks pass")
    }

    /// A table a log's numbers define, with gaps: placeholders set no bit,
    /// and every id defined passes.
    @Test func definedIdsPassAndPlaceholdersSetNothing() {
        var table = SymbolTable()
        _ = Array("late".utf8).withUnsafeBytes { table.define(5_000, $0) }
        let filter = SymbolFilter(table)
        #expect(Array("late".utf8).withUnsafeBytes { filter.mayContain($0) })
        #expect(filter.bits.allSatisfy { $0 == 0 || $0.nonzeroBitCount == 1 } && filter.bits.map(\.nonzeroBitCount).reduce(0, +) == 1)
    }
}
