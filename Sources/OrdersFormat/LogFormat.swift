import OrdersCore

/// Constants of the binary log format. `Sources/OrdersLog/FORMAT.md`
/// describes the format in full. Those the store's loops read an event at
/// a time are public and inlinable: an inlinable `package` declaration is
/// still a call from another module.
public enum LogFormat {
    /// The version this code writes. Versions 1 and 2 were pre-release
    /// layouts (version 2 numbered every id in one sequence, whatever its
    /// role); they are refused.
    package static let version: UInt16 = 4
    /// The oldest version this code reads and appends to: version 3, which
    /// has no record frames and no ignored events. Appending records to a
    /// version-3 log makes it version 4 first.
    package static let oldestVersion: UInt16 = 3
    /// The first eight bytes of the file header's content.
    package static let fileMagic: [UInt8] = Array("ORDERLOG".utf8)

    /// Skippable-frame magic numbers (zstd reserves 0x184D2A50 … 0x184D2A5F).
    package static let fileHeaderMagic: UInt32 = 0x184D_2A50
    package static let batchHeaderMagic: UInt32 = 0x184D_2A51
    package static let commitMagic: UInt32 = 0x184D_2A52
    /// A batch's records (version 4 on): ids, unknown types, extras.
    package static let recordMagic: UInt32 = 0x184D_2A53
    /// What an import read (version 4 on): a file's digest and its seqs.
    package static let importMagic: UInt32 = 0x184D_2A54

    /// Content sizes of the skippable frames; each frame is 8 bytes more.
    package static let fileHeaderContentSize = 16
    package static let batchHeaderContentSize = 48
    package static let commitContentSize = 24

    /// Limits a reader enforces before it allocates anything.
    package static let maxBatchEvents = 1 << 22
    package static let maxPayloadSize = 1 << 28
    package static let maxIdentifierLength = Identifiers.lengths.upperBound

    /// The roles whose spellings come before the columns, in this order: the
    /// ids reports name, which a fold reads.
    package static let foldedRoles: [Role] = [.product, .poll, .candidate]
    /// The roles whose spellings come after the columns, in this order: no
    /// fold reads them, so a fold decompresses no further than the columns.
    package static let unfoldedRoles: [Role] = [.cart, .order, .voter]

    /// Event kinds in the low bits of the kinds column's bytes. `ignored`
    /// (version 4 on) is an event of a type the fold does not know: it has a
    /// time and no other column, and its batch's record frame spells it.
    public enum Kind: UInt8, CaseIterable {
        case itemAdded = 0, quantityChanged, itemRemoved, checkedOut, voteCast, ignored
    }

    /// The bits of a kind byte that hold the kind; the rest hold a small quantity.
    @inlinable public static var kindBits: UInt8 { 3 }
    @inlinable public static var kindMask: UInt8 { 1 << kindBits - 1 }
    /// The largest quantity a kind byte holds; larger ones go in the quantities column.
    @inlinable public static var maxInlineQuantity: Int64 { Int64(UInt8.max >> kindBits) }
}

extension LogFormat.Kind {
    /// The kind's byte, `rawValue`, spelled out so that the batch codec's
    /// loops, in the store's module, fold it into a constant: a raw value
    /// read across a module boundary is a call an event.
    @inlinable public var byte: UInt8 {
        switch self {
        case .itemAdded: 0
        case .quantityChanged: 1
        case .itemRemoved: 2
        case .checkedOut: 3
        case .voteCast: 4
        case .ignored: 5
        }
    }
}

extension ByteWriter {
    /// The 8 bytes that open a skippable frame: its magic and content size.
    package mutating func writeSkippableHeader(magic: UInt32, contentSize: Int) {
        write(littleEndian: magic)
        write(littleEndian: UInt32(contentSize))
    }
}
