/// A value lent to one other thread (or queue), which takes it out of the
/// box, uses it, and lets it go before it answers, so that the lender holds
/// the only reference again once it hears back. A ``TransferBox`` value lives as
/// long as the closure that carries it, which may outlive the answer; a
/// copy-on-write table still shared then would make the lender's next
/// change copy it whole.
package final class LoanBox<Value>: @unchecked Sendable {  // Taken once, by the one borrower, before it answers.
    private var value: Value?

    package init(_ value: Value) { self.value = value }

    /// `body` of the value, which the box no longer holds once it returns.
    package func use<Result>(_ body: (Value) throws -> Result) rethrows -> Result {
        let value = self.value.take()!
        return try body(value)
    }
}
