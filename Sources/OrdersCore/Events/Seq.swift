/// An event's place in a log: 1 for its first event, one more for each
/// after. On disk a u64 (FORMAT.md); in memory an `Int64` everywhere, since
/// no log holds 2⁶³ events, and a reader refuses a seq past that as
/// corruption rather than cast it.
public typealias Seq = Int64
