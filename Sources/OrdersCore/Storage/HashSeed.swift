import Synchronization

/// A hash seed, at random: each table of ids and each map of the fold
/// takes its own, as `Dictionary` does, so that input cannot choose keys
/// that collide (``SymbolTable``, ``DenseMap``).
///
/// One seed is drawn from the system for the process; each call mixes a
/// count into it (SplitMix64), so that a table costs no system call: a
/// server makes tables for every request it parses.
@usableFromInline
func randomSeed() -> UInt64 {
    var z = processSeed &+ seedsTaken.wrappingAdd(1, ordering: .relaxed).newValue &* 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
}

private let processSeed: UInt64 = {
    var random = SystemRandomNumberGenerator()
    return random.next()
}()

private let seedsTaken = Atomic<UInt64>(0)
