import OrdersCore

extension Identifiers {
    /// The first role, in ``Role`` order, that numbers one spelling twice,
    /// with its first such pair (``SymbolTable/firstDuplicate()``): what
    /// `orders verify` checks once a log is read, since a replay trusts the
    /// writer to number each id once.
    ///
    /// A large table is searched in `threads` parts at once, the caller's
    /// thread among them (``SymbolTable/firstDuplicate(part:of:)``): the
    /// search comes after the reading, when the other threads are idle.
    public func firstDuplicate(threads: Int) -> (role: Role, first: Symbol, second: Symbol)? {
        for role in Role.allCases {
            let table = self[role]
            // Below this, starting threads costs more than it saves.
            let parts = table.count < 1 << 16 ? 1 : threads
            let found = onThreads(parts) { part in table.firstDuplicate(part: part, of: parts) }
            if let (first, second) = found.compactMap({ $0 }).min(by: { $0.1 < $1.1 }) { return (role, first, second) }
        }
        return nil
    }
}
