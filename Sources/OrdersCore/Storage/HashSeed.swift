import Synchronization

/// A hash seed, at random: each table of ids and each map of the fold
/// takes its own, as `Dictionary` does, so that input cannot choose keys
/// that collide (``SymbolTable``, ``DenseMap``).
///
/// One seed is drawn from the system for the process; each call mixes a
/// count into it (SplitMix64), so that a table costs no system call: a
/// server makes tables for every request it parses.
@usableFromInline
package func randomSeed() -> UInt64 {
    var z = processSeed &+ seedsTaken.wrappingAdd(1, ordering: .relaxed).newValue &* 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
}

/// MurmurHash3's 64-bit finalizer: every bit of `x` reaches every bit of
/// the result. What ``SymbolTable``'s hash mixes each word with, and what
/// ``Fingerprint`` ends with (so a log's fingerprints depend on it: never change it).
@inlinable @inline(__always)
func murmurFinalized(_ x: UInt64) -> UInt64 {
    var x = x
    x ^= x >> 33
    x &*= 0xFF51_AFD7_ED55_8CCD
    x ^= x >> 33
    x &*= 0xC4CE_B9FE_1A85_EC53
    x ^= x >> 33
    return x
}

private let processSeed: UInt64 = {
    var random = SystemRandomNumberGenerator()
    return random.next()
}()

private let seedsTaken = Atomic<UInt64>(0)
