import ArgumentParser
import OverlandExport
import OverlandJournal
import OverlandLogger
import OverlandSettings
import OverlandSync

/// Exit statuses, per sysexits(3).
public enum ExitStatus: Int32, Sendable {
    case ok = 0
    case usage = 64
    case dataError = 65
    case noInput = 66
    case cannotCreate = 73
    case ioError = 74
    case tryLater = 75
    case protocolError = 76
    case noPermission = 77
    case configuration = 78
}

/// An error a command reports as one line on stderr, with its exit status.
public struct CommandFailure: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var status: ExitStatus

    public init(_ message: String, status: ExitStatus) {
        self.message = message
        self.status = status
    }

    public var description: String { message }
}

extension JournalError {
    /// The exit status for this journal error: storage failures are I/O, permissions (denied,
    /// or a journal other users can write) 77, the rest bad data.
    var exitStatus: ExitStatus {
        switch self {
        case .io(_, _, _, let code) where code == 13 /* EACCES */ || code == 1 /* EPERM */: return .noPermission
        case .exposed: return .noPermission
        case .io, .poisoned: return .ioError
        case .notAJournal: return .noInput
        case .untrusted, .invalidRecord, .full: return .dataError
        }
    }
}

extension CommandFailure {
    /// The line and exit status of an error the libraries throw: the one place that maps
    /// their errors to sysexits. Nil for an error none of them throws.
    init?(reporting error: any Error) {
        switch error {
        case let failure as CommandFailure: self = failure
        case let error as JournalError: self.init("\(error)", status: error.exitStatus)
        case let error as SettingsError: self = error.commandFailure
        case let error as ExportOutputError:
            let status: ExitStatus = switch error.kind {
            case .exists, .cannotCreate: .cannotCreate
            case .permission: .noPermission
            case .io: .ioError
            }
            self.init(error.description, status: status)
        case let error as ExportSortError:
            // The sort's temporary file failed (74), or the journal changed while it was sorted (75).
            self.init(error.description, status: error.kind == .io ? .ioError : .tryLater)
        case let error as LoggerRunError: self.init(error.description, status: .ioError)
        case let error as DestinationCursorError:
            let status: ExitStatus = switch error {
            case .invalidName, .exists: .usage
            case .syncRunning: .tryLater
            }
            self.init(error.description, status: status)
        case let error as JournalOriginError: self.init(error.description, status: .dataError)
        case let error as ReadBackAudit.SpanError: self.init(error.description, status: .usage)
        case let error as DestinationSelectionError:
            self.init(error.description, status: error == .noneConfigured ? .configuration : .usage)
        default: return nil
        }
    }
}

/// Runs a command body, turning the errors it throws into one line on stderr
/// (`TOOL: message`) and the matching exit status.
public func reportingFailures(_ tool: String, _ body: () throws -> Void) throws {
    do {
        try body()
    } catch {
        guard let failure = CommandFailure(reporting: error) else { throw error }
        Terminal.error("\(tool): \(failure.message)")
        throw ExitCode(failure.status.rawValue)
    }
}
