// swift-tools-version: 6.1
import PackageDescription

// libFuzzer targets for the decoders that read untrusted bytes. Build and run
// them with ./run (it passes -sanitize=fuzzer); they are not part of `swift test`.
let package = Package(
    name: "OrdersFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "orders", path: "../")],
    targets: [
        // What every target shares: libFuzzer's driver, and the numbers fixtures are made from.
        .target(
            name: "FuzzSupport",
            dependencies: [.product(name: "OrdersCore", package: "orders"), .product(name: "OrdersFormat", package: "orders")],
            path: "Targets/FuzzSupport"),
        .executableTarget(
            name: "FuzzNDJSONLine",
            dependencies: ["FuzzSupport", .product(name: "OrdersLog", package: "orders"), .product(name: "OrdersCore", package: "orders")],
            path: "Targets/FuzzNDJSONLine", swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(
            name: "FuzzLogFile",
            dependencies: ["FuzzSupport", .product(name: "OrdersLog", package: "orders"), .product(name: "OrdersCore", package: "orders")],
            path: "Targets/FuzzLogFile", swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(
            name: "FuzzIndexFile",
            dependencies: [
                "FuzzSupport", .product(name: "OrdersLog", package: "orders"), .product(name: "OrdersCore", package: "orders"),
                .product(name: "OrdersEngine", package: "orders"),
            ],
            path: "Targets/FuzzIndexFile", swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(
            name: "FuzzSnapshotFile",
            dependencies: [
                "FuzzSupport", .product(name: "OrdersLog", package: "orders"), .product(name: "OrdersCore", package: "orders"),
                .product(name: "OrdersEngine", package: "orders"),
            ],
            path: "Targets/FuzzSnapshotFile", swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(
            name: "FuzzDatasetSnapshot",
            dependencies: [
                "FuzzSupport", .product(name: "OrdersLog", package: "orders"), .product(name: "OrdersCore", package: "orders"),
                .product(name: "OrdersEngine", package: "orders"),
            ],
            path: "Targets/FuzzDatasetSnapshot", swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(
            name: "FuzzEventIDFile",
            dependencies: [
                "FuzzSupport", .product(name: "OrdersLog", package: "orders"), .product(name: "OrdersFormat", package: "orders"),
            ],
            path: "Targets/FuzzEventIDFile", swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(
            name: "FuzzIDNumberFile",
            dependencies: [
                "FuzzSupport", .product(name: "OrdersLog", package: "orders"), .product(name: "OrdersFormat", package: "orders"),
                .product(name: "OrdersCore", package: "orders"),
            ],
            path: "Targets/FuzzIDNumberFile", swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(
            name: "FuzzPartSums",
            dependencies: ["FuzzSupport", .product(name: "OrdersLog", package: "orders"), .product(name: "OrdersCore", package: "orders")],
            path: "Targets/FuzzPartSums", swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(
            name: "FuzzBatchPayload",
            dependencies: ["FuzzSupport", .product(name: "OrdersLog", package: "orders"), .product(name: "OrdersCore", package: "orders")],
            path: "Targets/FuzzBatchPayload", swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
    ]
)
