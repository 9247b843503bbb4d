import Foundation
import Testing

/// What an app resolves when it depends on this package for OrdersClient
/// alone (Examples/KioskApp, `traits: []`): swift-system, swift-log and this package,
/// none of the server's dependencies. CI builds the app too.
@Suite("An app that depends on the client alone")
struct AppPackageTests {
    @Test func resolvesNoServerDependency() throws {
        let swift = Process()
        swift.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        swift.arguments = ["swift", "package", "--package-path", "Examples/KioskApp", "show-dependencies", "--format", "json"]
        let output = Pipe(), errors = Pipe()
        (swift.standardOutput, swift.standardError) = (output, errors)
        try swift.run()
        let text = output.fileHandleForReading.readDataToEndOfFile()
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        swift.waitUntilExit()
        #expect(swift.terminationStatus == 0, "\(complaint)")
        let root = try #require(try JSONSerialization.jsonObject(with: text) as? [String: Any])
        var names: Set<String> = []
        func visit(_ package: [String: Any]) {
            for dependency in package["dependencies"] as? [[String: Any]] ?? [] {
                names.insert(dependency["name"] as? String ?? "?")
                visit(dependency)
            }
        }
        visit(root)
        #expect(names == ["orders", "swift-log", "swift-system"], "\(names.sorted())")
    }
}
