import OrdersCore
import OrdersFormat

extension Identifiers {
    /// The first role, in ``Role`` order, that numbers one spelling twice,
    /// with its first such pair (``SymbolTable/firstDuplicate()``): what
    /// `orders verify` checks once a log is read, since a replay trusts the
    /// writer to number each id once.
    ///
    /// A large table is searched in up to `threads` parts at once, the
    /// caller's thread among them (``SymbolTable/firstDuplicate(part:of:)``):
    /// the search comes after the reading, when the other threads are idle.
    /// Each part hashes every id and indexes its share, so parts add work
    /// as well as take it: the hashing is a fifth of a whole search, so
    /// from 4 parts on it is most of what each part does, and past 8 more
    /// parts save little. Give it no more threads than there are cores.
    public func firstDuplicate(threads: Int) -> (role: Role, first: Symbol, second: Symbol)? {
        for role in Role.allCases {
            let table = self[role]
            // Below this many ids, starting threads costs more than it saves.
            let parts = table.count < 1 << 16 ? 1 : min(threads, 8)
            let found = onThreads(parts) { part in table.firstDuplicate(part: part, of: parts) }
            if let (first, second) = found.compactMap({ $0 }).min(by: { $0.1 < $1.1 }) { return (role, first, second) }
        }
        return nil
    }
}
