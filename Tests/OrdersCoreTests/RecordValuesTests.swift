import OrdersCore
import Testing

/// The values behind the record: a cart total past 128 bits, extras, and
/// the fingerprint that the log keeps (so its definition must not move).
@Suite("Record values")
struct RecordValuesTests {
    @Test func aWideIntegerIsExactPastInt128BothWays() {
        var sum = WideInteger()
        let big = Int128(Int64.max) * Int128(Int64.max)
        for _ in 0..<4 { sum.add(big) }
        #expect(sum.description == "340282366920938463389587631136930004996")
        #expect(sum.int128 == nil)
        #expect(sum.int64 == nil)
        for _ in 0..<4 { sum.add(-big) }
        #expect(sum == WideInteger())
        for _ in 0..<5 { sum.add(-big) }
        #expect(sum.description == "-425352958651173079236984538921162506245")
        sum = WideInteger(-7)
        #expect(sum.int64 == -7 && sum.description == "-7")
    }

    @Test func extrasKeepNamesAndValuesInOrder() throws {
        var extras = Extras()
        Array("staff".utf8).withUnsafeBytes { name in Array(#""kim""#.utf8).withUnsafeBytes { extras.append(name: name, value: $0) } }
        Array(#"d\u0065v"#.utf8).withUnsafeBytes { name in
            Array(#"{"a":[1,2]}"#.utf8).withUnsafeBytes { extras.append(name: name, value: $0) }
        }
        var seen: [String] = []
        extras.forEach { name, value in seen.append(String(decoding: name, as: UTF8.self) + "=" + String(decoding: value, as: UTF8.self)) }
        #expect(seen == [#"staff="kim""#, #"d\u0065v={"a":[1,2]}"#])
        #expect(Extras(encoded: extras.encoded) == extras)
        #expect(Extras(encoded: extras.encoded.dropLast()) == nil)
    }

    @Test func theFingerprintIsFixedByTheFormat() {
        var hash = Fingerprint()
        hash.add(Array("item_added".utf8))
        hash.add(Int64(1_758_013_200_000))
        hash.add(Array("kiosk-7".utf8))
        // Logs keep fingerprints: if this value moves, logs written before cannot tell duplicates from conflicts.
        // The value is FORMAT.md's definition worked out apart from this code (in Python).
        #expect(hash.value == 0x4A0F_C6BE_543E_46CB)
        var other = Fingerprint()
        other.add(Array("item_added".utf8))
        other.add(Int64(1_758_013_200_001))
        other.add(Array("kiosk-7".utf8))
        #expect(other.value != hash.value)
        // Fields run together differ from fields apart.
        var joined = Fingerprint(), apart = Fingerprint()
        joined.add(Array("ab".utf8))
        apart.add(Array("a".utf8))
        apart.add(Array("b".utf8))
        #expect(joined.value != apart.value)
    }
}
