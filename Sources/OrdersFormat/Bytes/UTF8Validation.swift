/// Whether `bytes` is well-formed UTF-8 (RFC 3629): no overlong forms, no
/// surrogates, nothing above U+10FFFF.
package func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
    firstInvalidUTF8(in: bytes) == nil
}

/// Whether every byte of `bytes` is ASCII (below 0x80), eight at a time.
package func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var i = 0
    var high: UInt64 = 0
    while i + 8 <= bytes.count {
        high |= bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        i += 8
    }
    while i < bytes.count {
        high |= UInt64(bytes[i])
        i += 1
    }
    return high & 0x8080_8080_8080_8080 == 0
}

/// Where the first byte of `bytes` lies that starts no well-formed UTF-8
/// sequence, or nil if there is none. ASCII runs go eight bytes at a time.
package func firstInvalidUTF8(in bytes: UnsafeRawBufferPointer) -> Int? {
    var i = 0
    let count = bytes.count
    while i < count {
        if i + 8 <= count, bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
            i += 8
            continue
        }
        let length = utf8SequenceLength(bytes, at: i)
        if length == 0 { return i }
        i += length
    }
    return nil
}

/// The length of the well-formed UTF-8 sequence that starts at `i`, or 0 if none does.
@inline(__always)
package func utf8SequenceLength(_ bytes: UnsafeRawBufferPointer, at i: Int) -> Int {
    let lead = bytes[i]
    if lead < 0x80 { return 1 }
    let count = bytes.count
    func continuation(_ at: Int) -> Bool { at < count && bytes[at] & 0xC0 == 0x80 }
    switch lead {
    case 0xC2...0xDF:
        return continuation(i + 1) ? 2 : 0
    case 0xE0...0xEF:
        guard continuation(i + 1), continuation(i + 2) else { return 0 }
        let second = bytes[i + 1]
        if lead == 0xE0 && second < 0xA0 { return 0 }  // overlong
        if lead == 0xED && second > 0x9F { return 0 }  // surrogate
        return 3
    case 0xF0...0xF4:
        guard continuation(i + 1), continuation(i + 2), continuation(i + 3) else { return 0 }
        let second = bytes[i + 1]
        if lead == 0xF0 && second < 0x90 { return 0 }  // overlong
        if lead == 0xF4 && second > 0x8F { return 0 }  // above U+10FFFF
        return 4
    default:
        return 0
    }
}
