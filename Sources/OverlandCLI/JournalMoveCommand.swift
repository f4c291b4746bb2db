#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import OverlandJournal
import OverlandRecorder
import OverlandSettings
import OverlandJSON

extension JournalCommand {
    /// `overland journal move --to DIR`: sealed, unsent segments into a journal on a stick.
    struct Move: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move sealed, unsent segments into a journal on a USB stick.",
            discussion: """
                The target becomes a journal of its own (created when missing) that 'overland-sync --journal DIR' \
                uploads from any machine. Each segment is copied, synced, read back and checked before it is removed \
                here, and until the move ends this journal is not synced: an interrupted move (a crash, a pulled \
                stick, a full target) never loses a record nor leaves one to be uploaded from both journals. Run the \
                same command again to finish an interrupted move, or --abort to give it up. Only sealed segments \
                move; --seal seals the active one first. The records a configured destination had acknowledged take \
                its place with them: an upload of the target to the same receiver (url, token, protocol, device id) \
                skips them; the move says how many each had. Exit status 74 when the target fails (full, say): the \
                segments moved so far stay moved, the rest stay here.
                """)

        @OptionGroup var journalOptions: JournalOptions

        @Option(name: .customLong("to"), help: ArgumentHelp(
            "The target journal directory (on the stick), e.g. /media/stick/overland.", valueName: "dir"))
        var target: String?

        @Flag(help: "Seal the active segment first, so that every record so far moves.")
        var seal = false

        @Flag(help: "Give up an interrupted move: segments complete in the target count as moved, the rest stay here.")
        var abort = false

        @Flag(name: .customLong("target-lost"),
              help: "With --abort: the target is gone for good; keep every remaining record here.")
        var targetLost = false

        func validate() throws {
            if !abort && target == nil { throw ValidationError("give the target journal with --to DIR") }
            if targetLost && !abort { throw ValidationError("--target-lost goes with --abort") }
            if abort && seal { throw ValidationError("--seal does not go with --abort") }
        }

        func run() throws {
            try reportingFailures("overland journal move") {
                let settings = try journalOptions.settings()
                let journal = try Journal(path: journalOptions.path(with: settings))
                let receivers = try journalOptions.settingsOptions.destinations(settings: settings).carriedReceivers
                let printer = IssuePrinter(tool: "overland journal move")
                var moved: JournalMoveReport?
                do throws(JournalMoveError) {
                    if abort {
                        let report = try journal.abortMove(targetPath: target, targetLost: targetLost, receivers: receivers)
                        Terminal.line(report.abortLine(source: journal.path))
                        return
                    }
                    let report = try journal.move(to: target!, sealFirst: seal, receivers: receivers, onIssue: printer.handler)
                    report.lines.forEach(Terminal.line)
                    moved = report
                } catch {
                    throw error.commandFailure
                }
                if let moved, case let unsent = try journal.unsentLeftBehind(by: moved, sealFirst: seal), unsent > 0 {
                    throw CommandFailure("moved nothing, and \(unsent) unsent points stay here: what is not sealed moves only with --seal "
                                         + "(overland journal move --seal --to DIR)", status: .usage)
                }
            }
        }
    }
}

extension JournalMoveError {
    var commandFailure: CommandFailure {
        switch self {
        case .busy: return CommandFailure(description, status: .tryLater)
        case .targetMissing: return CommandFailure(description, status: .noInput)
        case .otherMovePending, .noPendingMove, .sameJournal: return CommandFailure(description, status: .usage)
        case .targetNotEmpty: return CommandFailure(description, status: .cannotCreate)
        case .notAMoveTarget: return CommandFailure(description, status: .dataError)
        case .targetFailed(let error, _):
            // A full stick may say EPERM (fusefat) rather than ENOSPC: an I/O failure either way.
            if case .io(_, _, _, let code) = error, code == EACCES { return CommandFailure(description, status: .noPermission) }
            return CommandFailure(description, status: .ioError)
        case .journal(let error): return CommandFailure(description, status: error.exitStatus)
        }
    }
}
