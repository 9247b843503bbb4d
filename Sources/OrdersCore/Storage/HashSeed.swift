#if !canImport(Darwin)
import Synchronization
#endif

/// A hash seed, at random: each table of ids and each map of the fold
/// takes its own, as `Dictionary` does, so that input cannot choose keys
/// that collide (``SymbolTable``, ``DenseMap``).
///
/// Where drawing costs a system call (Linux's `getrandom`), one seed is
/// drawn for the process and each call mixes a count into it (SplitMix64),
/// so that a table costs none: a server makes tables for every request it
/// parses. Apple's systems draw in user space (`arc4random_buf`), and have
/// `Atomic` only from iOS 18 and macOS 15, which an app need not require.
@usableFromInline
package func randomSeed() -> UInt64 {
    #if canImport(Darwin)
    var random = SystemRandomNumberGenerator()
    return random.next()
    #else
    var z = processSeed &+ seedsTaken.wrappingAdd(1, ordering: .relaxed).newValue &* 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
    #endif
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

#if !canImport(Darwin)
private let processSeed: UInt64 = {
    var random = SystemRandomNumberGenerator()
    return random.next()
}()

private let seedsTaken = Atomic<UInt64>(0)
#endif
