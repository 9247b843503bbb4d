/// A hash seed, at random: each table of ids and each map of the fold
/// takes its own, as `Dictionary` does, so that input cannot choose keys
/// that collide (``SymbolTable``, ``DenseMap``).
@usableFromInline
func randomSeed() -> UInt64 {
    var random = SystemRandomNumberGenerator()
    return random.next()
}
