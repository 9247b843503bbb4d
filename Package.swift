// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "orders",
    // iOS for OrdersClient, which a shop app links: Duration and ContinuousClock ask for 16. macOS for
    // the server, whose Mutex and Atomic ask for 15 (docs/client.md, "Platforms").
    platforms: [.macOS(.v15), .iOS(.v16)],
    products: [
        .executable(name: "orders", targets: ["orders"]),
        .library(name: "OrdersCore", targets: ["OrdersCore"]),
        .library(name: "OrdersFormat", targets: ["OrdersFormat"]),
        .library(name: "OrdersLog", targets: ["OrdersLog"]),
        .library(name: "OrdersReports", targets: ["OrdersReports"]),
        .library(name: "OrdersEngine", targets: ["OrdersEngine"]),
        .library(name: "OrdersWorkload", targets: ["OrdersWorkload"]),
        .library(name: "OrdersServer", targets: ["OrdersServer"]),
        .library(name: "OrdersClient", targets: ["OrdersClient"]),
    ],
    // Everything but the client sits behind the default trait, so that an app that depends on this
    // package for OrdersClient with `traits: []` resolves swift-system and swift-log alone (Examples/KioskApp).
    traits: [
        .trait(name: "Server", description: "The command line, `orders serve` and their dependencies: Hummingbird, NIO, lifecycle."),
        .default(enabledTraits: ["Server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // Already Hummingbird's; named for NIOCore's IOError, which says why the server could not listen.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // zlib (Debian: zlib1g-dev) for request bodies sent with `Content-Encoding: gzip`.
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
    ],
    targets: [
        // libzstd from the system (Debian: libzstd-dev), through a module map.
        .systemLibrary(
            name: "CZstd",
            pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]
        ),
        // CRC-32C with the CPU's instruction, which Swift cannot reach; OrdersFormat falls back to software.
        .target(name: "CCRC32C"),
        // A hint to the CPU that Swift cannot spell: fetch memory into the cache before it is read.
        .target(name: "CPrefetch"),
        // The domain: events, the fold rules, report values. No I/O, no Foundation.
        .target(name: "OrdersCore", dependencies: ["CPrefetch"]),
        // The log's byte formats, NDJSON in and out, CRC-32C and zstd frames of raw blocks: pure, with no
        // file, no thread and no system library, so that an app links it (OrdersClient).
        .target(name: "OrdersFormat", dependencies: ["OrdersCore", "CCRC32C"]),
        // POSIX files as the store and the outbox write them: errors that name the file, whole reads
        // and writes, directory syncs, and the group committer that shares one sync among writers.
        .target(
            name: "OrdersFiles",
            dependencies: ["OrdersCore", "OrdersFormat", .product(name: "SystemPackage", package: "swift-system")]
        ),
        // The store: the log's files, its writer, index, snapshot, event-id file and datasets, zstd through libzstd.
        .target(
            name: "OrdersLog",
            dependencies: [
                "OrdersCore", "OrdersFormat", "OrdersFiles", "CZstd",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            exclude: ["FORMAT.md", "DATASETS.md"]
        ),
        // Report values rendered for people and machines: tables, CSV, JSON, SVG.
        .target(name: "OrdersReports", dependencies: ["OrdersCore", "OrdersFormat"]),
        // The fold of a whole input by the strategy that fits it, a cart's audit, verify's checks:
        // what the CLI and the server call alike.
        .target(name: "OrdersEngine", dependencies: ["OrdersCore", "OrdersFormat", "OrdersLog", "OrdersReports"]),
        // Realistic event streams, generated deterministically, for `orders generate`, benchmarks and tests.
        .target(name: "OrdersWorkload", dependencies: ["OrdersCore"]),
        // `orders serve`: HTTP over the same log and fold, with Hummingbird 2, and its subscriptions' push.
        .target(
            name: "OrdersServer",
            dependencies: [
                "OrdersCore", "OrdersFormat", "OrdersFiles", "OrdersLog", "OrdersReports", "OrdersEngine",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Server"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Server"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Server"])),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Server"])),
                .product(name: "CompressNIO", package: "compress-nio", condition: .when(traits: ["Server"])),
                // A subscription's push, and `orders send`'s and `subscribe`'s HTTP (NIOTransport says why).
                "OrdersClient", .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Server"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["Server"])),
            ]
        ),
        // A shop app's side: a durable outbox on the device, delivered to `orders serve` exactly once.
        // URLSession (FoundationNetworking on Linux) for HTTP: what apps already use, and no dependency more.
        .target(
            name: "OrdersClient",
            dependencies: [
                "OrdersCore", "OrdersFormat", "OrdersFiles", .product(name: "SystemPackage", package: "swift-system"),
                // The logging hook: an app's Logger, as the server-side Swift packages take one.
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["OUTBOX.md"]
        ),
        // The command line: a thin adapter over the modules above.
        .executableTarget(
            name: "orders",
            dependencies: [
                "OrdersCore", "OrdersFormat", "OrdersFiles", "OrdersLog", "OrdersReports", "OrdersEngine", "OrdersWorkload",
                "OrdersServer", "OrdersClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Server"])),
            ]
        ),
        .testTarget(name: "OrdersCoreTests", dependencies: ["OrdersCore"]),
        .testTarget(name: "OrdersFormatTests", dependencies: ["OrdersFormat", "OrdersCore", "CCRC32C"]),
        .testTarget(name: "OrdersLogTests", dependencies: ["OrdersLog", "OrdersFormat", "OrdersFiles", "OrdersCore"]),
        .testTarget(name: "OrdersReportsTests", dependencies: ["OrdersReports", "OrdersCore", "OrdersFormat", "OrdersLog"]),
        .testTarget(name: "OrdersWorkloadTests", dependencies: ["OrdersWorkload", "OrdersCore"]),
        .testTarget(
            name: "OrdersEngineTests",
            dependencies: ["OrdersEngine", "OrdersFormat", "OrdersFiles", "OrdersLog", "OrdersCore", "OrdersWorkload"]
        ),
        // The server's routes through its application's responder (no socket), beside OrdersCLITests' live ones.
        .testTarget(
            name: "OrdersServerTests",
            dependencies: [
                "OrdersServer", "OrdersCore", .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "NIOEmbedded", package: "swift-nio", condition: .when(traits: ["Server"])),
            ]
        ),
        .testTarget(name: "OrdersClientTests", dependencies: ["OrdersClient", "OrdersFormat", "OrdersFiles", "OrdersLog", "OrdersCore"]),
        .testTarget(
            name: "OrdersCLITests",
            dependencies: [
                "OrdersFormat", "OrdersFiles", "OrdersLog", "OrdersCore", "OrdersWorkload", "OrdersClient",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// A sanitizer's build needs only the suites it runs: `ORDERS_TEST_TARGETS="OrdersLogTests OrdersEngineTests"`
// keeps those test targets and the targets they depend on, so that nothing else is built again
// instrumented (.ci/run). Unset, the package is whole.
if let names = Context.environment["ORDERS_TEST_TARGETS"] {
    var kept = Set(names.split(separator: " ").map(String.init))
    var grew = true
    while grew {
        grew = false
        for target in package.targets where kept.contains(target.name) {
            for case .targetItem(let name, _) in target.dependencies where kept.insert(name).inserted { grew = true }
            for case .byNameItem(let name, _) in target.dependencies where kept.insert(name).inserted { grew = true }
        }
    }
    package.targets.removeAll { !kept.contains($0.name) }
    package.products = []
    // And the packages no kept target names, which SwiftPM would warn of.
    var used = Set<String>()
    for target in package.targets {
        for case .productItem(_, let name?, _, _) in target.dependencies { used.insert(name) }
    }
    package.dependencies.removeAll { dependency in
        guard case .sourceControl(_, let location, _) = dependency.kind else { return false }
        return !used.contains(String(location.split(separator: "/").last ?? ""))
    }
}
