/// Eight bytes of text at a time, as one word: finding the bytes that end a
/// run of plain characters without looking at each byte.

@inlinable public var lowBits: UInt64 { 0x0101_0101_0101_0101 }
@inlinable public var highBits: UInt64 { 0x8080_8080_8080_8080 }

/// The high bit of each byte of `word` that equals `byte`, and perhaps of
/// some bytes above the lowest that does: exact up to the lowest match.
@inline(__always)
package func flagged(_ word: UInt64, equalTo byte: UInt8) -> UInt64 {
    let x = word ^ (lowBits &* UInt64(byte))
    return (x &- lowBits) & ~x & highBits
}

/// The high bit of each byte of `word` below `bound` (at most 0x80), exact
/// up to the lowest such byte, as `flagged(_:equalTo:)`.
@inline(__always)
package func flagged(_ word: UInt64, below bound: UInt8) -> UInt64 {
    (word &- lowBits &* UInt64(bound)) & ~word & highBits
}

/// The bytes of `word` that are not plain ASCII inside a JSON string (a
/// quote, a backslash, a control character or a byte of a longer UTF-8
/// sequence), flagged exactly up to the first: `trailingZeroBitCount >> 3`
/// is its index, or 8 if there is none.
@inline(__always)
package func specialBytes(_ word: UInt64) -> UInt64 {
    flagged(word, equalTo: 0x22) | flagged(word, equalTo: 0x5C) | flagged(word, below: 0x20) | word & highBits
}

/// Where the first byte at or after `start` is that is not plain ASCII
/// inside a JSON string (see `specialBytes`), or `bytes.count` if none is:
/// sixteen bytes at a time, then eight, then one at a time near the end.
///
/// Sixteen at first, with no branch on which eight hold the byte: the ids
/// and names of a line end within sixteen bytes, at random places, and a
/// branch for each eight was mispredicted as often as not.
@inline(__always)
package func firstSpecialByte(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
    var p = start
    while p + 16 <= bytes.count {
        let first = specialBytes(bytes.loadUnaligned(fromByteOffset: p, as: UInt64.self))
        let second = specialBytes(bytes.loadUnaligned(fromByteOffset: p + 8, as: UInt64.self))
        if first | second != 0 {
            // 8 for a word with none: then the second word's index is added.
            let inFirst = first.trailingZeroBitCount >> 3, inSecond = second.trailingZeroBitCount >> 3
            return p + inFirst + inSecond & (0 &- inFirst >> 3)
        }
        p += 16
    }
    while p + 8 <= bytes.count {
        let special = specialBytes(bytes.loadUnaligned(fromByteOffset: p, as: UInt64.self))
        if special != 0 { return p + special.trailingZeroBitCount >> 3 }
        p += 8
    }
    while p < bytes.count {
        let byte = bytes[p]
        if byte == 0x22 || byte == 0x5C || byte < 0x20 || byte >= 0x80 { return p }
        p += 1
    }
    return p
}
