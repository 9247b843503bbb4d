/// A map from an id's spelling to its number, on disk: what each candidate offers.
protocol IDMap {
    /// Adds `count` keys from `keys` numbered from `first`, as a rebuild from the log adds them, in log order.
    mutating func build(_ keys: Keys) throws
    /// The number of `key`, or nil.
    func number(of key: UnsafeRawBufferPointer) throws -> UInt64?
    /// Bytes on disk.
    func bytes() -> Int64
}

struct MapError: Error, CustomStringConvertible {
    var description: String
}
