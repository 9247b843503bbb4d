/// A value handed to exactly one other thread (or queue), which alone uses
/// it from then on, while the one that handed it touches it no more: what
/// makes the hand-over safe, which the compiler cannot see, is that rule.
/// The one box of its kind, so that each hand-over is named where it is made.
package struct TransferBox<Value>: @unchecked Sendable {  // One owner at a time, as above.
    package let value: Value

    package init(_ value: Value) { self.value = value }
}
