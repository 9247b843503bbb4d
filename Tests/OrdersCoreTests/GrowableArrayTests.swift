import OrdersCore
import Testing

/// `GrowableArray` must behave as `Array` does, value semantics included,
/// however it grows underneath.
@Suite("GrowableArray")
struct GrowableArrayTests {
    @Test func randomEditsMatchAnArray() {
        var growable = GrowableArray<UInt64>()
        var array: [UInt64] = []
        var state: UInt64 = 7
        func below(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        // Enough appends that the block outgrows glibc's mmap threshold and is remapped.
        for step in 0..<30_000 {
            switch below(10) {
            case 0..<6:
                growable.append(UInt64(step))
                array.append(UInt64(step))
            case 6:
                let count = below(50)
                growable.append(repeating: UInt64(count), count: count)
                array.append(contentsOf: repeatElement(UInt64(count), count: count))
            case 7 where !array.isEmpty:
                let i = below(array.count)
                growable[i] &+= 3
                array[i] &+= 3
            case 8 where array.count > 10:
                let kept = array.count - below(10)
                growable.removeLast(from: kept)
                array.removeSubrange(kept...)
            default:
                [UInt64(step), 1, 2].withUnsafeBufferPointer { growable.append(contentsOf: $0) }
                array.append(contentsOf: [UInt64(step), 1, 2])
            }
        }
        growable._checkInvariants()
        #expect(growable.count == array.count)
        #expect(growable.elementsEqual(array))
        #expect(growable.withUnsafeBufferPointer { Array($0) } == array)
    }

    @Test func aCopyDoesNotSeeLaterWrites() {
        var original = GrowableArray(repeating: UInt32(1), count: 100)
        let copy = original
        original[5] = 9
        original.append(7)
        var second = copy
        second.removeLast(from: 10)
        second[0] = 4
        #expect(copy.count == 100 && copy.allSatisfy { $0 == 1 })
        #expect(original.count == 101 && original[5] == 9 && original[100] == 7)
        #expect(Array(second) == [4] + Array(repeating: 1, count: 9))
    }

    @Test func bytesAppendAndReadAsRaw() {
        var bytes = GrowableArray<UInt8>()
        Array("hello, ".utf8).withUnsafeBytes { bytes.append(contentsOf: $0) }
        Array("world".utf8).withUnsafeBytes { bytes.append(contentsOf: $0) }
        #expect(bytes.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } == "hello, world")
    }
}
