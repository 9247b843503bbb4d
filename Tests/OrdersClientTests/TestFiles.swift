import Foundation

/// A fresh directory for one test's files, inside one folder for the whole
/// test run that is removed when the run's process exits.
func temporaryDirectory() -> String {
    let path = testRunDirectory + "/" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

private let testRunDirectory: String = {
    let path = NSTemporaryDirectory() + "orders-client-tests-" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    testRunDirectoryToRemove = path
    atexit { testRunDirectoryToRemove.map { _ = try? FileManager.default.removeItem(atPath: $0) } }
    return path
}()

nonisolated(unsafe) private var testRunDirectoryToRemove: String?  // Set once, before atexit can run.

/// Line `n` of a test's events: an `item_added` with an id of its own.
func eventLine(_ n: Int) -> String {
    #"{"id":"e-\#(n)","type":"item_added","at":"2025-09-16T10:00:00Z","cart":"c-\#(n % 17)","product":"p-\#(n % 5)","qty":1,"price":\#(n),"currency":"USD"}"#
}

/// The lines `range` as the outbox takes them, each ending in a newline.
func lines(_ range: Range<Int>) -> [UInt8] { Array(range.map { eventLine($0) + "\n" }.joined().utf8) }
