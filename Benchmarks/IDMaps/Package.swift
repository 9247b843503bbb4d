// swift-tools-version: 6.1
import PackageDescription

// Issue 62's measurement: the map from an id's spelling to its number, on disk,
// by LMDB, by RocksDB and by sorted runs of our own, on the same keys. Run from
// this folder (docs/performance.md has the figures):
//   swift run -c release id-maps --keys 100000000 --shape v7 --dir /tmp/id-maps
let package = Package(
    name: "IDMaps",
    platforms: [.macOS(.v15)],
    // For OrdersWorkload's SplitMix64 alone: without the Server trait, none of the server's dependencies resolve.
    dependencies: [.package(name: "orders", path: "../..", traits: [])],
    targets: [
        // Debian: liblmdb-dev.
        .systemLibrary(name: "CLMDB", pkgConfig: "lmdb", providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]),
        // Debian: librocksdb-dev, through its C API.
        .systemLibrary(name: "CRocksDB", pkgConfig: "rocksdb", providers: [.apt(["librocksdb-dev"]), .brew(["rocksdb"])]),
        .executableTarget(
            name: "id-maps", dependencies: ["CLMDB", "CRocksDB", .product(name: "OrdersWorkload", package: "orders")]),
    ],
    swiftLanguageModes: [.v6]
)
