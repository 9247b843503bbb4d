import OrdersCore
import OrdersFormat

/// Checks that each batch spells again exactly the earlier ids its events
/// use: what `orders verify` adds to reading, since a replay has no need of
/// those spellings (FORMAT.md), and what lets an export worker spell a
/// batch's ids from the batch alone (``BatchSpellings``).
///
/// The ids a batch uses are marked in a bitmap per role, by number, kept
/// from batch to batch and left clear after each: a bit an id of the log,
/// so it stays in the cache where marks of a word each would not, and no
/// id is hashed, as a `Set` would.
package struct SpelledAgainCheck {
    package init() {}

    /// By ``Role``: a bit for each id number below the batch's first new one.
    private var marks: [[UInt64]] = Array(repeating: [], count: Role.allCases.count)
    /// By ``Role``: how many bits the batch's events set.
    private var marked: [Int] = Array(repeating: 0, count: Role.allCases.count)

    /// Checks `events`, the batch's, decoded, against what `dictionary`
    /// says it spells again in `payload`.
    package mutating func check(_ events: [Event], _ dictionary: BatchDictionary, in payload: UnsafeRawBufferPointer) throws(ByteReader
        .Malformed)
    {
        for role in Role.allCases {
            let words = (dictionary[role].firstNew + 63) / 64
            if marks[role.rawValue].count < words {
                marks[role.rawValue].append(contentsOf: repeatElement(0, count: words - marks[role.rawValue].count))
            }
        }
        for event in events {
            switch event.kind {
            case .itemAdded(let cart, let product, _, _, _), .quantityChanged(let cart, let product, _),
                .itemRemoved(let cart, let product):
                mark(cart, .cart, dictionary)
                mark(product, .product, dictionary)
            case .checkedOut(let cart, let order):
                mark(cart, .cart, dictionary)
                mark(order, .order, dictionary)
            case .voteCast(let poll, let voter, let candidate):
                mark(poll, .poll, dictionary)
                mark(voter, .voter, dictionary)
                mark(candidate, .candidate, dictionary)
            case .ignored:
                break
            }
        }
        // Every role's marks are cleared before anything is thrown: the next batch starts from none.
        var fault: ByteReader.Malformed?
        for role in Role.allCases {
            if fault == nil {
                fault = unmark(role, dictionary, payload)
            } else {
                clear(role)
            }
        }
        if let fault { throw fault }
    }

    /// Marks `id` of `role` used, if it is an earlier batch's.
    @inline(__always)
    private mutating func mark(_ id: Symbol, _ role: Role, _ dictionary: BatchDictionary) {
        guard id.index < dictionary[role].firstNew else { return }
        let bit: UInt64 = 1 << (id.rawValue & 63)
        let word = marks[role.rawValue][id.index >> 6]
        marks[role.rawValue][id.index >> 6] = word | bit
        marked[role.rawValue] &+= word & bit == 0 ? 1 : 0
    }

    /// Clears the marks of `role`, each against an id spelled again.
    /// - Returns: the fault: spellings that do not read, or else the
    ///   smallest id used but not spelled again, or else the smallest
    ///   spelled again but not used; nil if none.
    private mutating func unmark(_ role: Role, _ dictionary: BatchDictionary, _ payload: UnsafeRawBufferPointer) -> ByteReader.Malformed? {
        let again: [Int]
        do {
            again = try dictionary.againNumbers(of: role, in: payload)
        } catch {
            clear(role)
            return error
        }
        var cleared = 0
        var extra: Int?
        for number in again {
            let bit: UInt64 = 1 << UInt64(number & 63)
            if marks[role.rawValue][number >> 6] & bit != 0 {
                marks[role.rawValue][number >> 6] &= ~bit
                cleared += 1
            } else if extra == nil {
                extra = number  // Ascending: the first is the smallest.
            }
        }
        // Marks that no spelling cleared are ids used but not spelled again.
        let missing = cleared == marked[role.rawValue] ? nil : clear(role)
        marked[role.rawValue] = 0
        let position = dictionary[role].section.lowerBound
        if let missing {
            return ByteReader.Malformed(
                position: position,
                reason: "the batch uses \(role.field) id number \(missing) of an earlier batch without spelling it again")
        }
        if let extra {
            return ByteReader.Malformed(
                position: position, reason: "the batch spells again \(role.field) id number \(extra), which it does not use")
        }
        return nil
    }

    /// Clears every mark of `role`, searching the whole bitmap: for a batch found at fault.
    /// - Returns: the smallest id that was marked.
    @discardableResult
    private mutating func clear(_ role: Role) -> Int? {
        var first: Int?
        for index in marks[role.rawValue].indices where marks[role.rawValue][index] != 0 {
            first = first ?? index * 64 + marks[role.rawValue][index].trailingZeroBitCount
            marks[role.rawValue][index] = 0
        }
        marked[role.rawValue] = 0
        return first
    }
}
