import Foundation

/// A fresh directory for one test's files, named after `prefix`, inside one
/// folder for the whole test run that is removed when the run's process exits.
func temporaryDirectory(_ prefix: String) throws -> String {
    let path = engineTestRunDirectory + "/" + prefix + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

private let engineTestRunDirectory: String = {
    let path = NSTemporaryDirectory() + "orders-engine-tests-" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    engineTestRunDirectoryToRemove = path
    atexit { engineTestRunDirectoryToRemove.map { _ = try? FileManager.default.removeItem(atPath: $0) } }
    return path
}()

nonisolated(unsafe) private var engineTestRunDirectoryToRemove: String?  // Set once, before atexit can run.
