extension Duration {
    /// The duration in seconds, as a rate or a note computes with it.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
