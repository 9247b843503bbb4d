/// CSV by RFC 4180: `\n` line ends, and a field holding a comma, a double
/// quote, CR or LF in double quotes with inner quotes doubled.
public struct CSV {
    public private(set) var bytes: [UInt8] = []

    /// Starts a CSV with its header line.
    public init(header: [String]) {
        row(header.map { .text($0) })
    }

    /// One field of a row.
    public enum Field {
        case text(String)
        case bytes([UInt8])
        case integer(Int64)
    }

    public mutating func row(_ fields: [Field]) {
        for (i, field) in fields.enumerated() {
            if i > 0 { bytes.append(0x2C) }
            switch field {
            case .text(let text): append(Array(text.utf8))
            case .bytes(let raw): append(raw)
            case .integer(let value): bytes.append(contentsOf: String(value).utf8)
            }
        }
        bytes.append(0x0A)
    }

    private mutating func append(_ field: [UInt8]) {
        guard field.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0D || $0 == 0x0A }) else {
            bytes.append(contentsOf: field)
            return
        }
        bytes.append(0x22)
        for byte in field {
            if byte == 0x22 { bytes.append(0x22) }
            bytes.append(byte)
        }
        bytes.append(0x22)
    }
}
