import OrdersCore
import Testing

@Suite("The fold's rules, one by one")
struct LedgerTests {
    @Test func addingToANewCartOpensIt() {
        var given = Given()
        var projector = Projector()
        #expect(projector.fold(given.add("c", "p")) == .applied)
        #expect(projector.ledger.openCarts == 1)
        #expect(projector.ledger.openTotals(of: given.id(.cart, "c")) == (1, 100))
    }

    @Test func addingAnExistingLineGrowsItAndTakesTheNewPrice() {
        var given = Given()
        var projector = Projector()
        projector.fold(given.add("c", "p", qty: 2, price: 100))
        projector.fold(given.add("c", "p", qty: 3, price: 70))
        #expect(projector.ledger.openTotals(of: given.id(.cart, "c")) == (5, 350))
    }

    @Test func addingToAClosedCartIsCartClosed() {
        var given = Given()
        #expect(
            statuses([given.add("c", "p"), given.checkout("c", "o"), given.add("c", "p")])
                == [.applied, .applied, .anomaly(.cartClosed)])
    }

    @Test func cartClosedIsCheckedBeforeCurrency() {
        var given = Given()
        #expect(
            statuses([given.add("c", "p"), given.checkout("c", "o"), given.add("c", "q", currency: "USD")]).last
                == .anomaly(.cartClosed))
    }

    @Test func addingInAnotherCurrencyIsCurrencyMismatch() {
        var given = Given()
        #expect(
            statuses([given.add("c", "p", currency: "USD"), given.add("c", "q", currency: "KRW")]).last
                == .anomaly(.currencyMismatch))
    }

    @Test func aCartWhoseLinesAreAllRemovedTakesAnyCurrency() {
        var given = Given()
        #expect(
            statuses([given.add("c", "p", currency: "USD"), given.remove("c", "p"), given.add("c", "q", currency: "KRW")])
                == [.applied, .applied, .applied])
    }

    @Test func currencyIsCheckedBeforeOverflow() {
        var given = Given()
        #expect(
            statuses([given.add("c", "p", qty: .max), given.add("c", "p", qty: 1, currency: "USD")]).last
                == .anomaly(.currencyMismatch))
    }

    @Test func growingALinePastInt64IsOverflowAndLeavesItAlone() {
        var given = Given()
        var projector = Projector()
        projector.fold(given.add("c", "p", qty: .max - 1, price: 0))
        #expect(projector.fold(given.add("c", "p", qty: 2, price: 0)) == .anomaly(.overflow))
        #expect(projector.ledger.openTotals(of: given.id(.cart, "c")).units == Int128(Int64.max - 1))
        #expect(projector.fold(given.add("c", "p", qty: 1, price: 0)) == .applied)
    }

    @Test func changingAQuantitySetsIt() {
        var given = Given()
        var projector = Projector()
        projector.fold(given.add("c", "p", qty: 2, price: 10))
        #expect(projector.fold(given.change("c", "p", qty: 7)) == .applied)
        #expect(projector.ledger.openTotals(of: given.id(.cart, "c")) == (7, 70))
    }

    @Test func changingAMissingLineOrCartIsNoSuchLine() {
        var given = Given()
        #expect(statuses([given.change("nobody", "p", qty: 1)]) == [.anomaly(.noSuchLine)])
        #expect(statuses([given.add("c", "p"), given.change("c", "q", qty: 1)]).last == .anomaly(.noSuchLine))
    }

    @Test func changingOrRemovingInAClosedCartIsCartClosed() {
        var given = Given()
        let events = [
            given.add("c", "p"), given.checkout("c", "o"), given.change("c", "p", qty: 2), given.remove("c", "p"),
            given.change("c", "missing", qty: 2),
        ]
        #expect(statuses(events) == [.applied, .applied, .anomaly(.cartClosed), .anomaly(.cartClosed), .anomaly(.cartClosed)])
    }

    @Test func removingDropsTheLineAndKeepsTheCartOpen() {
        var given = Given()
        var projector = Projector()
        projector.fold(given.add("c", "p"))
        #expect(projector.fold(given.remove("c", "p")) == .applied)
        #expect(projector.ledger.openCarts == 1)
        #expect(projector.fold(given.remove("c", "p")) == .anomaly(.noSuchLine))
        #expect(projector.fold(given.checkout("c", "o")) == .anomaly(.emptyCart))
    }

    @Test func checkingOutPlacesAnOrderAndClosesTheCart() {
        var given = Given()
        var projector = Projector()
        projector.fold(given.add("c", "p", qty: 2, price: 150))
        projector.fold(given.add("c", "q", qty: 1, price: 1000))
        #expect(projector.fold(given.checkout("c", "o")) == .applied)
        let summary = projector.reports.summary
        #expect(summary.orders == 1)
        #expect(summary.revenue[Currency("KRW")!] == ExactSum(1300))
        #expect(summary.units[Currency("KRW")!] == ExactSum(3))
        #expect(summary.openCarts == 0)
        // Closed for good: its lines are let go, its totals were the order's.
        let closed = projector.ledger.isClosed(given.id(.cart, "c"))
        #expect(closed)
        #expect(projector.ledger.openTotals(of: given.id(.cart, "c")) == (-1, -1))
    }

    @Test func aClosedCartsCheckoutIsCartClosedEvenWithAUsedOrder() {
        var given = Given()
        #expect(
            statuses([given.add("c", "p"), given.checkout("c", "o"), given.checkout("c", "o")]).last
                == .anomaly(.cartClosed))
    }

    @Test func reusingAnAppliedOrderIdIsDuplicateOrderBeforeEmptyCart() {
        var given = Given()
        let events = [
            given.add("a", "p"), given.checkout("a", "o"), given.checkout("ghost", "o"), given.add("b", "p"),
            given.checkout("b", "o"),
        ]
        #expect(statuses(events) == [.applied, .applied, .anomaly(.duplicateOrder), .applied, .anomaly(.duplicateOrder)])
    }

    @Test func anOrderIdOfAFailedCheckoutStaysFree() {
        var given = Given()
        let events = [given.checkout("ghost", "o"), given.add("c", "p"), given.checkout("c", "o")]
        #expect(statuses(events) == [.anomaly(.emptyCart), .applied, .applied])
    }

    @Test func checkingOutAnUnknownOrEmptyCartIsEmptyCart() {
        var given = Given()
        #expect(statuses([given.checkout("ghost", "o")]) == [.anomaly(.emptyCart)])
        #expect(statuses([given.add("c", "p"), given.remove("c", "p"), given.checkout("c", "o")]).last == .anomaly(.emptyCart))
    }

    @Test func aTotalPastInt64IsOverflowAndTheCartStaysOpen() {
        var given = Given()
        var projector = Projector()
        projector.fold(given.add("c", "p", qty: 2, price: .max / 2 + 1))
        #expect(projector.fold(given.checkout("c", "o")) == .anomaly(.overflow))
        #expect(projector.ledger.openCarts == 1)
        projector.fold(given.change("c", "p", qty: 1))
        #expect(projector.fold(given.checkout("c", "o")) == .applied)
    }

    @Test func unitsPastInt64IsOverflowEvenAtPriceZero() {
        var given = Given()
        let events = [given.add("c", "p", qty: .max, price: 0), given.add("c", "q", qty: 1, price: 0), given.checkout("c", "o")]
        #expect(statuses(events).last == .anomaly(.overflow))
    }

    @Test func aRepeatedVoteIsCountedOnce() {
        var given = Given()
        var projector = Projector()
        let events = [given.vote("p", "u1", "a"), given.vote("p", "u1", "a"), given.vote("p", "u1", "b"), given.vote("q", "u1", "a")]
        #expect(events.map { projector.fold($0) } == [.applied, .anomaly(.duplicateVote), .applied, .applied])
        #expect(projector.reports.summary.votes == 3)
    }

    @Test func idsThatSwiftCallsEqualButDifferInBytesAreDifferent() {
        var given = Given()
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed)  // Swift's String == says so…
        #expect(given.id(.cart, composed) != given.id(.cart, decomposed))  // …the bytes do not.
        #expect(statuses([given.add(composed, "p"), given.checkout(composed, "o"), given.add(decomposed, "p")]).last == .applied)
    }

    @Test func everyAnomalyIsCountedByKind() {
        var given = Given()
        var projector = Projector()
        let events = [
            given.add("c", "p"), given.checkout("c", "o"), given.add("c", "p"),  // cart_closed
            given.add("d", "p", currency: "USD"), given.add("d", "q"),  // currency_mismatch
            given.remove("d", "zz"),  // no_such_line
            given.checkout("ghost", "o"),  // duplicate_order
            given.checkout("ghost", "o2"),  // empty_cart
            given.add("e", "p", qty: .max), given.add("e", "p", qty: 1),  // overflow
            given.vote("p", "v", "x"), given.vote("p", "v", "x"),  // duplicate_vote
        ]
        for event in events { projector.fold(event) }
        let summary = projector.reports.summary
        #expect(summary.events == 12)
        #expect(summary.applied == 5)
        for kind in Anomaly.allCases { #expect(summary.anomalies[kind] == 1, "\(kind)") }
    }
}
