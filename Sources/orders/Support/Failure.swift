import ArgumentParser
import OrdersCore
import OrdersLog
import OrdersReports

/// Runs a command's body, turning the errors of the modules below into a
/// message on standard error and an exit status.
/// - Parameter consequence: a line to add after the error, e.g. what was not done.
func reportingFailures(consequence: String? = nil, _ body: () throws -> Void) throws {
    do {
        try body()
        Console.flush()
    } catch {
        throw reported(error, consequence: consequence)
    }
}

/// `reportingFailures` for a command that runs async (`serve`).
func reportingFailures(consequence: String? = nil, _ body: () async throws -> Void) async throws {
    do {
        try await body()
        Console.flush()
    } catch {
        throw reported(error, consequence: consequence)
    }
}

/// What a command's body threw, said on standard error, as what ends the command: an
/// ``ExitCode`` with the status its code says, or a usage error for ArgumentParser to say.
private func reported(_ error: any Error, consequence: String?) -> any Error {
    Console.flush()
    switch error {
    case is ValidationError, is ExitCode:
        return error
    case let interrupted as Interrupted:
        Console.note("orders: interrupted\(consequence.map { ": \($0)" } ?? "")")
        return ExitCode(128 + interrupted.signal)
    default:
        // Each module's errors carry their code (ErrorCode), which says the exit status.
        let status = (error as? any OrdersError)?.code.exitStatus ?? 1
        Console.note("orders: error: \(error)")
        if let consequence { Console.note("orders: \(consequence)") }
        return ExitCode(status)
    }
}
