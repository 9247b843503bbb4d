import OrdersCore
import OrdersFormat

/// The spellings of the ids one batch uses, found by number within the
/// batch alone: each batch spells every id it uses (FORMAT.md), so a worker
/// can write a batch's events out as text without the batches before it.
///
/// A new id is found by its distance from the role's first new number, an
/// id spelled again by a binary search of the batch's again numbers, which
/// the payload keeps in ascending order. Kept by a loader and refilled for
/// each batch, so that its arrays are allocated once.
package struct BatchSpellings {
    package init() {}

    /// Where a spelling lies in the payload.
    private struct Span {
        var start: UInt32
        var count: UInt32
    }

    /// Where one role's ids lie in the arrays below.
    private struct RoleIndex {
        var firstNew = 0
        var newCount = 0
        /// Where the role's spans start: its new ids' first, then its again ids'.
        var spanBase = 0
        /// Where the role's again numbers start, and how many there are.
        var againBase = 0
        var againCount = 0
    }

    /// By ``Role``.
    private var roles = Array(repeating: RoleIndex(), count: Role.allCases.count)
    private var spans: [Span] = []
    private var againNumbers: [Int] = []

    /// Reads where `dictionary`'s spellings lie in `payload`, every role's.
    /// - Throws: if a section does not read (the spellings' lengths, their UTF-8).
    package mutating func read(_ dictionary: BatchDictionary, in payload: UnsafeRawBufferPointer) throws(ByteReader.Malformed) {
        spans.removeAll(keepingCapacity: true)
        againNumbers.removeAll(keepingCapacity: true)
        for role in Role.allCases {
            let entry = dictionary[role]
            roles[role.rawValue] = RoleIndex(
                firstNew: entry.firstNew, newCount: entry.newCount, spanBase: spans.count,
                againBase: againNumbers.count, againCount: entry.againCount)
            try dictionary.forEachSpelling(of: role, in: payload) { number, bytes, start in
                spans.append(Span(start: UInt32(start), count: UInt32(bytes.count)))
                if number < entry.firstNew { againNumbers.append(number) }
            }
        }
    }

    /// Where the spelling of `id`, of `role`, lies in the payload; empty if
    /// the batch does not spell it, which a batch that spells again every
    /// earlier id it uses never asks (see ``SpelledAgainCheck``).
    @inline(__always)
    private func span(of id: Symbol, _ role: Role) -> Span {
        let index = roles[role.rawValue]
        let number = id.index
        if number >= index.firstNew {
            let new = number - index.firstNew
            guard new < index.newCount else { return missing(id, role) }
            return spans[index.spanBase + new]
        }
        // The first again number not below `number`, branch-free but for the loop.
        var low = index.againBase, count = index.againCount
        while count > 1 {
            let half = count / 2
            low = againNumbers[low + half - 1] < number ? low + half : low
            count -= half
        }
        guard count == 1, againNumbers[low] == number else { return missing(id, role) }
        return spans[index.spanBase + index.newCount + low - index.againBase]
    }

    private func missing(_ id: Symbol, _ role: Role) -> Span {
        assertionFailure("\(role.field) id number \(id.index) is not spelled by the batch")
        return Span(start: 0, count: 0)
    }

    /// These spellings, read in `payload`, the payload they came from.
    package func reading(_ payload: UnsafeRawBufferPointer) -> Reading {
        Reading(spellings: self, payload: payload)
    }

    /// Spellings and the payload they lie in, for as long as its bytes are borrowed.
    package struct Reading: IdentifierSpellings {
        package let spellings: BatchSpellings
        package let payload: UnsafeRawBufferPointer

        @inline(__always)
        package func withBytes<R>(of id: Symbol, _ role: Role, _ body: (UnsafeRawBufferPointer) -> R) -> R {
            let span = spellings.span(of: id, role)
            return body(UnsafeRawBufferPointer(rebasing: payload[Int(span.start)..<Int(span.start + span.count)]))
        }
    }
}
