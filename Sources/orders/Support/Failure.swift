import ArgumentParser
import OrdersCore
import OrdersLog
import OrdersReports

/// Exit statuses scripts can rely on (BSD sysexits where one fits).
enum ExitStatus {
    static let sumOverflow: Int32 = 1
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
    static let ioError: Int32 = 74
}

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
    } catch {
        Console.flush()
        let status: Int32
        switch error {
        case is InputError, is CatalogError: status = ExitStatus.dataError
        case is SumOverflow: status = ExitStatus.sumOverflow
        case let error as FileError where error.operation == "opening": status = ExitStatus.noInput
        case is FileError: status = ExitStatus.ioError
        case is ZstdError: status = ExitStatus.dataError
        default: status = 1
        }
        Console.note("orders: error: \(error)")
        if let consequence { Console.note("orders: \(consequence)") }
        throw ExitCode(status)
    }
}
