import Foundation

/// Runs the built `orders` binary, as a person or a script would.
enum CLI {
    /// The package's root folder.
    static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The `orders` binary built beside the test bundle.
    static let binary: URL = {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("orders")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return root.appendingPathComponent(".build/debug/orders")
    }()

    struct Result {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// Runs `orders` with `arguments` in the package root, feeding `input`
    /// to standard input, with `environment` added to the test's own.
    static func run(_ arguments: [String], input: [UInt8] = [], environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.currentDirectoryURL = root
        // Standard input and error go through files, standard output through a pipe read to its end.
        let scratch = temporaryDirectory()
        _ = FileManager.default.createFile(atPath: scratch + "/stdin", contents: Data(input))
        _ = FileManager.default.createFile(atPath: scratch + "/stderr", contents: nil)
        let stdout = Pipe()
        process.standardInput = FileHandle(forReadingAtPath: scratch + "/stdin")
        process.standardOutput = stdout
        process.standardError = FileHandle(forWritingAtPath: scratch + "/stderr")
        try process.run()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let err = FileManager.default.contents(atPath: scratch + "/stderr") ?? Data()
        try? FileManager.default.removeItem(atPath: scratch)
        return Result(status: process.terminationStatus, stdout: Array(out), stderr: String(decoding: err, as: UTF8.self))
    }

    /// The bytes of a file under the package root.
    static func fixture(_ path: String) -> [UInt8] {
        Array(FileManager.default.contents(atPath: root.appendingPathComponent(path).path) ?? Data())
    }

    /// A fresh folder for one test, inside one folder for the whole test
    /// run that is removed when the run's process exits.
    static func temporaryDirectory() -> String {
        let path = runDirectory + "/" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private static let runDirectory: String = {
        let path = NSTemporaryDirectory() + "orders-cli-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        runDirectoryToRemove = path
        atexit { CLI.runDirectoryToRemove.map { _ = try? FileManager.default.removeItem(atPath: $0) } }
        return path
    }()

    nonisolated(unsafe) private static var runDirectoryToRemove: String?  // Set once, before atexit can run.
}
