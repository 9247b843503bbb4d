#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A table of plain values with one owner: the fold's state, read and
/// written once or more for every event.
///
/// Noncopyable, so no write asks whether another copy shares the storage
/// (`Array` and ``GrowableArray`` do, through a runtime call, on every
/// write); one `malloc` block that grows with `realloc`, which glibc does
/// for a large block by remapping its pages, copying nothing. Entries are
/// added as an index first needs them (``cover(_:)``), in steps, so that the
/// check is one compare that is almost never taken, and only memory that
/// is used gets touched. A new entry is all zero bytes, which every element
/// kept here takes as its empty value. Open to the package, for the
/// log's own tables on its column loop.
@usableFromInline
package struct OwnedTable<Element: BitwiseCopyable>: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<Element>
    @usableFromInline var capacity: Int
    /// Entries `0..<count` are valid.
    @usableFromInline package var count = 0

    /// The fewest entries ``cover(_:)`` adds at once.
    @usableFromInline static var step: Int { max(1, 4096 / MemoryLayout<Element>.stride) }

    @inlinable
    package init() {
        capacity = Self.step
        base = Self.allocate(capacity)
    }

    @inlinable deinit { free(base) }

    /// Entry `index`, which must be below `count`.
    @inlinable
    package subscript(index: Int) -> Element {
        get {
            assert(index >= 0 && index < count, "index out of range")
            // Safe: callers keep `index` below `count` (``cover(_:)``), within the allocated block.
            return base[index]
        }
        _modify {
            assert(index >= 0 && index < count, "index out of range")
            yield &base[index]
        }
    }

    /// Makes `index` valid, adding zeroed entries up to it.
    @inlinable @inline(__always)
    package mutating func cover(_ index: Int) {
        if index >= count { grow(toCover: index) }
    }

    /// Adds `count` zeroed entries at the end.
    /// - Returns: the index of the first.
    @inlinable
    mutating func append(zeroed added: Int) -> Int {
        let first = count
        reserve(count + added)
        UnsafeMutableRawPointer(base + first).initializeMemory(as: UInt8.self, repeating: 0, count: added * MemoryLayout<Element>.stride)
        count += added
        return first
    }

    /// Adds `element` at the end.
    /// - Returns: its index.
    @inlinable
    mutating func append(_ element: Element) -> Int {
        if count == capacity { reserve(count + 1) }
        (base + count).initialize(to: element)
        count += 1
        return count - 1
    }

    @usableFromInline
    mutating func grow(toCover index: Int) {
        precondition(index >= 0, "a negative index")
        _ = append(zeroed: max(index + 1, count + Self.step) - count)
    }

    /// Makes room for `minimum` entries, at least doubling.
    @usableFromInline
    mutating func reserve(_ minimum: Int) {
        guard minimum > capacity else { return }
        let capacity = max(minimum, self.capacity * 2)
        let (bytes, overflow) = capacity.multipliedReportingOverflow(by: MemoryLayout<Element>.stride)
        guard !overflow, let grown = realloc(base, bytes) else { fatalError("out of memory for \(capacity) table entries") }
        base = grown.bindMemory(to: Element.self, capacity: capacity)
        self.capacity = capacity
    }

    @usableFromInline
    static func allocate(_ capacity: Int) -> UnsafeMutablePointer<Element> {
        guard let raw = malloc(capacity * MemoryLayout<Element>.stride) else { fatalError("out of memory for \(capacity) table entries") }
        return raw.bindMemory(to: Element.self, capacity: capacity)
    }
}

extension OwnedTable {
    /// Traps if the count is not within the capacity. For tests, as swift-collections' `_checkInvariants`.
    package func _checkInvariants() {
        precondition(count >= 0 && count <= capacity, "\(count) elements in room for \(capacity)")
    }
}
