import OrdersCore

/// Where the bytes of an event's ids are found, by role and number: the
/// log's ``Identifiers``, or one batch's own spellings (``BatchSpellings``),
/// with which a worker writes the batch out without the batches before it.
package protocol IdentifierSpellings: ~Copyable {
    /// Calls `body` with the bytes of `id`, of `role`.
    func withBytes<R>(of id: Symbol, _ role: Role, _ body: (UnsafeRawBufferPointer) -> R) -> R
}

extension Identifiers: IdentifierSpellings {
    @inline(__always)
    package func withBytes<R>(of id: Symbol, _ role: Role, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        self[role].withBytes(of: id, body)
    }
}
