// swift-tools-version: 6.1
import PackageDescription

// An app-shaped package that depends on OrdersClient alone, as a shop app
// would: `traits: []` turns off the package's default trait (Server), so
// that none of the server's dependencies resolve. A real app names the
// repository's URL and a version in place of the path.
let package = Package(
    name: "KioskApp",
    platforms: [.macOS(.v15), .iOS(.v16)],
    dependencies: [
        .package(name: "orders", path: "../..", traits: [])
    ],
    targets: [
        .executableTarget(name: "KioskApp", dependencies: [.product(name: "OrdersClient", package: "orders")])
    ],
    swiftLanguageModes: [.v6]
)
