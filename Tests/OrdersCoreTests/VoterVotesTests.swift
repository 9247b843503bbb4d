import OrdersCore
import Testing

/// A voter's votes are kept in three places as they come (see `VoterVotes`):
/// the first in the voter's entry, the next in a block of 2, 4, 8 or 16,
/// the rest in a map. Wherever a vote is kept, its repeat must be refused,
/// and nothing else.
@Suite("Votes kept voter by voter")
struct VoterVotesTests {
    /// Hears nothing: these tests look only at each vote's status.
    struct Unheard: FoldObserver {
        mutating func placed(_ order: PlacedOrder) {}
        mutating func voted(poll: Symbol, candidate: Symbol) {}
    }

    private func vote(_ ledger: inout Ledger, _ poll: UInt32, _ voter: UInt32, _ candidate: UInt32) -> Status {
        var unheard = Unheard()
        return ledger.castVote(
            poll: Symbol(rawValue: poll), voter: Symbol(rawValue: voter),
            candidate: Symbol(rawValue: candidate), observer: &unheard)
    }

    @Test("three voters' 40 votes each count once, and every repeat is refused, wherever it is kept")
    func repeatsAreRefusedInTheEntryEveryBlockAndTheMap() {
        var ledger = Ledger()
        // Voters take turns, so that their blocks lie side by side in the pool; each votes for candidates of its own.
        func candidate(_ voter: UInt32, _ n: UInt32) -> UInt32 { 3 * n + voter }
        for n in UInt32(0)..<40 {
            for voter in UInt32(0)..<3 {
                #expect(vote(&ledger, n % 5, voter, candidate(voter, n)) == .applied, "voter \(voter), vote \(n)")
                // The one before, and the first, are refused at every size.
                if n > 0 {
                    #expect(
                        vote(&ledger, (n - 1) % 5, voter, candidate(voter, n - 1)) == .anomaly(.duplicateVote),
                        "voter \(voter), vote \(n - 1) again")
                }
                #expect(vote(&ledger, 0, voter, candidate(voter, 0)) == .anomaly(.duplicateVote), "voter \(voter), the first again")
                // Another voter's vote is not this one's.
                #expect(vote(&ledger, n % 5, voter, candidate((voter + 1) % 3, n)) == .applied, "voter \(voter), a neighbour's vote")
            }
        }
        for n in UInt32(0)..<40 {
            for voter in UInt32(0)..<3 {
                #expect(vote(&ledger, n % 5, voter, candidate(voter, n)) == .anomaly(.duplicateVote), "voter \(voter), vote \(n) again")
                #expect(vote(&ledger, n % 5, voter, candidate((voter + 1) % 3, n)) == .anomaly(.duplicateVote))
                #expect(vote(&ledger, (n + 1) % 5, voter, candidate(voter, n)) == .applied, "another poll")
            }
        }
    }

    @Test(
        "the largest polls and candidates, whose keys do not fit a voter's entry",
        arguments: [UInt32.max, UInt32(1) << 31, (UInt32(1) << 31) - 1])
    func largeKeysAreKeptToo(poll: UInt32) {
        var ledger = Ledger()
        for candidate in [UInt32.max, UInt32.max - 1, 0] {
            #expect(vote(&ledger, poll, 7, candidate) == .applied)
            #expect(vote(&ledger, poll, 7, candidate) == .anomaly(.duplicateVote))
        }
        // A first vote of the largest key is not a repeat of no vote.
        #expect(vote(&ledger, UInt32.max, 8, UInt32.max) == .applied)
        #expect(vote(&ledger, UInt32.max, 8, UInt32.max) == .anomaly(.duplicateVote))
        #expect(vote(&ledger, 0, 8, 0) == .applied)
    }

    @Test("random votes, and hints to fetch any voter, match a plain set", arguments: [1, 2, 3])
    func randomVotesMatchASet(seed: UInt64) {
        var state = seed
        func below(_ n: UInt32) -> UInt32 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt32(truncatingIfNeeded: state >> 33) % n
        }
        var ledger = Ledger()
        var seen = Set<[UInt32]>()
        for step in 0..<30_000 {
            // Skewed: a few voters vote hundreds of times, most a few.
            let voter = below(below(60) + 1)
            let poll = below(20) == 0 ? UInt32.max - below(2) : below(4)
            let candidate = below(20) == 0 ? UInt32.max - below(2) : below(9)
            if step % 3 == 0 { ledger.prefetchVote(voter: Symbol(rawValue: below(100)), near: step % 2 == 0) }
            let expected: Status = seen.insert([poll, voter, candidate]).inserted ? .applied : .anomaly(.duplicateVote)
            let status = vote(&ledger, poll, voter, candidate)
            #expect(status == expected, "step \(step)")
            if status != expected { return }
        }
        let most = Dictionary(grouping: seen, by: { $0[1] }).values.map(\.count).max() ?? 0
        #expect(most > 16, "some voter's votes go past its block")
    }
}
