#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An array of plain values in one `malloc` block that grows with `realloc`,
/// with `Array`'s value semantics (copy on write).
///
/// Written for the fold's big tables rather than using `Array`: an `Array`
/// that outgrows its buffer copies into a new one, and for tables of hundreds
/// of megabytes that copy and the fresh pages it writes cost. glibc grows a large block by remapping its pages (`mremap`),
/// copying nothing and touching no page.
public struct GrowableArray<Element: BitwiseCopyable>: @unchecked Sendable {  // Copy on write, like Array.
    /// Owns the block, frees it, and by its reference count tells whether it is shared.
    @usableFromInline
    final class Block {
        @usableFromInline var base: UnsafeMutablePointer<Element>

        @usableFromInline
        init(capacity: Int) {
            let (bytes, overflow) = capacity.multipliedReportingOverflow(by: MemoryLayout<Element>.stride)
            guard !overflow, let raw = malloc(bytes) else { fatalError("out of memory for \(capacity) elements") }
            base = raw.bindMemory(to: Element.self, capacity: capacity)
        }

        deinit { free(base) }
    }

    // The pointer, count and capacity live here rather than in the block, so
    // that reading an element touches no class (and no exclusivity check).
    @usableFromInline var block: Block
    @usableFromInline var base: UnsafeMutablePointer<Element>
    @usableFromInline var capacity: Int
    @usableFromInline var stored = 0

    @inlinable public var count: Int { stored }

    @inlinable
    public init() {
        capacity = 16
        block = Block(capacity: capacity)
        base = block.base
    }

    @inlinable
    public init(repeating value: Element, count: Int) {
        self.init()
        append(repeating: value, count: count)
    }

    @inlinable
    public var isEmpty: Bool { count == 0 }

    /// Gives this value a block of its own with room for `minimum` elements.
    @inlinable
    mutating func prepareToWrite(holding minimum: Int) {
        if !isKnownUniquelyReferenced(&block) {
            copyToOwnBlock(holding: minimum)
        } else if minimum > capacity {
            grow(toHold: minimum)
        }
    }

    @usableFromInline
    mutating func copyToOwnBlock(holding minimum: Int) {
        let capacity = Swift.max(minimum, count, 16)
        let copy = Block(capacity: capacity)
        copy.base.initialize(from: base, count: count)
        block = copy
        base = copy.base
        self.capacity = capacity
    }

    /// Makes room for `minimum` elements, at least doubling.
    @usableFromInline
    mutating func grow(toHold minimum: Int) {
        let capacity = Swift.max(minimum, self.capacity * 2)
        let (bytes, overflow) = capacity.multipliedReportingOverflow(by: MemoryLayout<Element>.stride)
        guard !overflow, let raw = realloc(block.base, bytes) else { fatalError("out of memory for \(capacity) elements") }
        block.base = raw.bindMemory(to: Element.self, capacity: capacity)
        base = block.base
        self.capacity = capacity
    }

    @inlinable
    public mutating func append(_ element: Element) {
        prepareToWrite(holding: count + 1)
        (base + count).initialize(to: element)
        stored += 1
    }

    @inlinable
    public mutating func append(repeating element: Element, count added: Int) {
        precondition(added >= 0, "a negative count")
        prepareToWrite(holding: count + added)
        (base + count).initialize(repeating: element, count: added)
        stored += added
    }

    /// Grows the array so that it has an element at `index`, the new ones
    /// `filler`, at least doubling it: a table indexed by id grows by one id
    /// at a time in amortised constant time.
    @inlinable
    public mutating func extend(toCover index: Int, with filler: Element) {
        guard index >= count else { return }
        append(repeating: filler, count: Swift.max(index + 1, count * 2) - count)
    }

    @inlinable
    public mutating func append(contentsOf elements: UnsafeBufferPointer<Element>) {
        guard let source = elements.baseAddress else { return }
        prepareToWrite(holding: count + elements.count)
        (base + count).initialize(from: source, count: elements.count)
        stored += elements.count
    }

    /// Keeps the first `count` elements.
    @inlinable
    public mutating func removeLast(from kept: Int) {
        precondition(kept >= 0 && kept <= count, "index out of range")
        prepareToWrite(holding: kept)
        stored = kept
    }

    @inlinable
    public func withUnsafeBufferPointer<R, E: Error>(_ body: (UnsafeBufferPointer<Element>) throws(E) -> R) throws(E) -> R {
        try withExtendedLifetime(block) { () throws(E) -> R in
            try body(UnsafeBufferPointer(start: base, count: count))
        }
    }

    @inlinable
    public mutating func withUnsafeMutableBufferPointer<R, E: Error>(_ body: (UnsafeMutableBufferPointer<Element>) throws(E) -> R) throws(E)
        -> R
    {
        prepareToWrite(holding: count)
        return try withExtendedLifetime(block) { () throws(E) -> R in
            try body(UnsafeMutableBufferPointer(start: base, count: count))
        }
    }
}

extension GrowableArray: RandomAccessCollection, MutableCollection {
    public typealias Index = Int
    public typealias Indices = Range<Int>

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }

    @inlinable
    public subscript(position: Int) -> Element {
        get {
            precondition(position >= 0 && position < count, "index out of range")
            return base[position]
        }
        _modify {
            precondition(position >= 0 && position < count, "index out of range")
            prepareToWrite(holding: count)
            yield &base[position]
        }
    }

    @inlinable
    public func withContiguousStorageIfAvailable<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R? {
        try withExtendedLifetime(block) { try body(UnsafeBufferPointer(start: base, count: count)) }
    }
}

extension GrowableArray where Element == UInt8 {
    @inlinable
    public mutating func append(contentsOf bytes: UnsafeRawBufferPointer) {
        append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
    }

    @inlinable
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try withUnsafeBufferPointer { (buffer) throws(E) -> R in try body(UnsafeRawBufferPointer(buffer)) }
    }
}

extension GrowableArray {
    /// Traps if the count is not within the capacity. For tests, as swift-collections' `_checkInvariants`.
    package func _checkInvariants() {
        precondition(stored >= 0 && stored <= capacity, "\(stored) elements in room for \(capacity)")
    }
}
