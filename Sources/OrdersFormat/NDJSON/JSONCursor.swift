import OrdersCore

/// A place in one line of JSON and the reads that move it on, checking
/// JSON's grammar and UTF-8 as they go: the one type through which the
/// parser reads a line's bytes by their address, as swift-nio's
/// `ByteBuffer` owns its storage and its reader index. It keeps nothing it
/// reads; ``NDJSONParser`` notes where each value starts and ends.
package struct JSONCursor {
    package typealias Failure = NDJSONParser.Failure

    /// The line's bytes, valid while the parser reads the line.
    package let bytes: UnsafeRawBufferPointer
    /// The offset of the next byte to read.
    package var position: Int

    package init(_ bytes: UnsafeRawBufferPointer, at position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    /// Whether every byte is read.
    package var atEnd: Bool { position >= bytes.count }

    /// Whether the next byte is `byte`.
    package func isAt(_ byte: UInt8) -> Bool { position < bytes.count && bytes[position] == byte }

    /// Reads any JSON value and says what kind it was.
    package mutating func readValue(depth: Int) throws(Failure) -> NDJSONParser.Slot.Kind {
        guard !atEnd else { throw notJSON("expected a value", at: position) }
        switch bytes[position] {
        case 0x22:
            return try skipString() ? .escapedString : .string
        case 0x2D, 0x30...0x39:
            return try skipNumber() ? .integer : .number
        case 0x7B, 0x5B:
            guard depth < NDJSONParser.maxDepth else { throw notJSON("nested deeper than \(NDJSONParser.maxDepth) levels", at: position) }
            try skipContainer(depth: depth)
            return .other
        case 0x74: try literal("true")
        case 0x66: try literal("false")
        case 0x6E: try literal("null")
        default: throw notJSON("expected a value", at: position)
        }
        return .other
    }

    package mutating func skipContainer(depth: Int) throws(Failure) {
        let isObject = bytes[position] == 0x7B
        let close: UInt8 = isObject ? 0x7D : 0x5D
        position += 1
        skipWhitespace()
        if isAt(close) {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            if isObject {
                guard isAt(0x22) else { throw notJSON("expected a field name in double quotes", at: position) }
                _ = try skipString()
                skipWhitespace()
                guard isAt(0x3A) else { throw notJSON("expected ':' after a field name", at: position) }
                position += 1
                skipWhitespace()
            }
            _ = try readValue(depth: depth + 1)
            skipWhitespace()
            guard !atEnd else { throw notJSON("\(isObject ? "an object" : "an array") is not closed", at: position) }
            if isAt(0x2C) {
                position += 1
                continue
            }
            if isAt(close) {
                position += 1
                return
            }
            throw notJSON("expected ',' or '\(isObject ? "}" : "]")'", at: position)
        }
    }

    /// Moves past a string, checking its escapes and that it is UTF-8.
    /// - Returns: whether it holds escapes.
    package mutating func skipString() throws(Failure) -> Bool {
        position += 1
        var escaped = false
        while true {
            position = firstSpecialByte(in: bytes, from: position)
            guard !atEnd else { throw notJSON("a string is not closed", at: position) }
            let byte = bytes[position]
            if byte == 0x22 {
                position += 1
                return escaped
            } else if byte < 0x20 {
                throw notJSON("a control character inside a string must be escaped", at: position)
            } else if byte >= 0x80 {
                let length = utf8SequenceLength(bytes, at: position)
                guard length > 0 else { throw Self.notUTF8(at: position) }
                position += length
            } else {  // a backslash
                escaped = true
                var scratch: UInt32 = 0
                position += 1
                try readEscape(codePoint: &scratch)
            }
        }
    }

    /// Decodes the string whose content starts at `position` (just past the quote) into `output`.
    package mutating func unescape(into output: inout [UInt8]) throws(Failure) {
        while position < bytes.count {
            let byte = bytes[position]
            if byte == 0x22 {
                position += 1
                return
            }
            if byte != 0x5C {
                output.append(byte)
                position += 1
                continue
            }
            position += 1
            var codePoint: UInt32 = 0
            try readEscape(codePoint: &codePoint)
            appendUTF8(codePoint, to: &output)
        }
        throw notJSON("a string is not closed", at: position)
    }

    /// Reads the escape after a backslash, combining a surrogate pair into one code point.
    package mutating func readEscape(codePoint: inout UInt32) throws(Failure) {
        guard !atEnd else { throw notJSON("a string is not closed", at: position) }
        let start = position - 1
        switch bytes[position] {
        case 0x22: codePoint = 0x22
        case 0x5C: codePoint = 0x5C
        case 0x2F: codePoint = 0x2F
        case 0x62: codePoint = 0x08
        case 0x66: codePoint = 0x0C
        case 0x6E: codePoint = 0x0A
        case 0x72: codePoint = 0x0D
        case 0x74: codePoint = 0x09
        case 0x75:
            position += 1
            let unit = try hex4()
            switch unit {
            case 0xD800...0xDBFF:
                guard position + 1 < bytes.count, bytes[position] == 0x5C, bytes[position + 1] == 0x75 else {
                    throw notJSON("a \\u escape is half a surrogate pair", at: start)
                }
                position += 2
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw notJSON("a \\u escape is half a surrogate pair", at: start) }
                codePoint = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            case 0xDC00...0xDFFF:
                throw notJSON("a \\u escape is half a surrogate pair", at: start)
            default:
                codePoint = unit
            }
            return
        default:
            throw notJSON("an unknown escape in a string", at: start)
        }
        position += 1
    }

    package mutating func hex4() throws(Failure) -> UInt32 {
        guard position + 4 <= bytes.count else { throw notJSON("a \\u escape needs four hex digits", at: position) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = hexDigitValue(bytes[position]) else { throw notJSON("a \\u escape needs four hex digits", at: position) }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// Moves past a number in JSON's grammar.
    /// - Returns: whether it is an integer (no fraction, no exponent).
    package mutating func skipNumber() throws(Failure) -> Bool {
        let start = position
        func isDigit(_ i: Int) -> Bool { i < bytes.count && bytes[i] &- 0x30 < 10 }
        if isAt(0x2D) { position += 1 }
        guard isDigit(position) else { throw notJSON("a number needs digits", at: start) }
        if isAt(0x30) {
            position += 1
            if isDigit(position) { throw notJSON("a number must not start with 0", at: start) }
        } else {
            while isDigit(position) { position += 1 }
        }
        var integer = true
        if isAt(0x2E) {
            position += 1
            guard isDigit(position) else { throw notJSON("a number needs digits after '.'", at: start) }
            while isDigit(position) { position += 1 }
            integer = false
        }
        if position < bytes.count, bytes[position] | 0x20 == 0x65 {
            position += 1
            if isAt(0x2B) || isAt(0x2D) { position += 1 }
            guard isDigit(position) else { throw notJSON("a number needs digits in its exponent", at: start) }
            while isDigit(position) { position += 1 }
            integer = false
        }
        return integer
    }

    package mutating func literal(_ word: StaticString, ) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count,
            memoryEquals(bytes.baseAddress! + position, word.utf8Start, count)
        else { throw notJSON("expected a value", at: position) }
        position += count
    }

    package mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    package static func notUTF8(at position: Int) -> Failure {
        Failure(message: "not valid UTF-8 (column \(position + 1))")
    }

    package func notJSON(_ reason: String, at position: Int) -> Failure {
        Failure(message: "not JSON: \(reason) (column \(position + 1))")
    }
}
