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
    } catch let error as ValidationError {
        Console.flush()
        throw error
    } catch let error as ExitCode {
        Console.flush()
        throw error
    } catch let interrupted as Interrupted {
        Console.flush()
        Console.note("orders: interrupted\(consequence.map { ": \($0)" } ?? "")")
        throw ExitCode(128 + interrupted.signal)
    } catch {
        Console.flush()
        // Each module's errors carry their code (ErrorCode), which says the exit status.
        let status = (error as? any OrdersError)?.code.exitStatus ?? 1
        Console.note("orders: error: \(error)")
        if let consequence { Console.note("orders: \(consequence)") }
        throw ExitCode(status)
    }
}
