// swift-tools-version: 6.1
import PackageDescription

// Benchmarks live in their own package so that building and testing `orders`
// never pulls in the benchmark machinery. Run from this folder:
//   swift package benchmark
let package = Package(
    name: "OrdersBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "orders", path: "../"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "OrdersBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "OrdersCore", package: "orders"),
                .product(name: "OrdersFormat", package: "orders"),
                .product(name: "OrdersLog", package: "orders"),
                .product(name: "OrdersWorkload", package: "orders"),
            ],
            path: "Benchmarks/OrdersBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // `record` from many tasks at once, durably: events/s and latency percentiles (docs/client.md).
        .executableTarget(
            name: "client-record",
            dependencies: [.product(name: "OrdersClient", package: "orders")],
            path: "Benchmarks/ClientRecord"
        ),
    ]
)
