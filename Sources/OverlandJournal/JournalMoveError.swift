import OverlandJSON

/// Why a move did not complete.
public enum JournalMoveError: Error, Sendable, CustomStringConvertible {
    /// A sync or another move of the source runs now.
    case busy(path: String)
    /// An interrupted move waits for its target, which is not at the path given.
    case targetMissing(path: String, intent: JournalMoveIntent)
    /// An interrupted move to another target must be finished or aborted first.
    case otherMovePending(JournalMoveIntent)
    /// `--abort` with no move pending.
    case noPendingMove
    /// The target directory holds other files and no journal.
    case targetNotEmpty(path: String)
    /// The target is a journal that `move` did not create (a logger's own journal, say).
    case notAMoveTarget(path: String)
    /// The target is the source, or inside it.
    case sameJournal(path: String)
    /// Writing a segment into the target failed before anything of it was there (the
    /// target is full, say): every earlier segment moved, the rest stayed, no move pending.
    case targetFailed(JournalError, JournalMoveReport)
    /// Anything else, with the journal's own error.
    case journal(JournalError)

    public var description: String {
        switch self {
        case .busy:
            return "a sync or a move of this journal is running; try again when it ends"
        case .targetMissing(let path, let intent):
            return "an interrupted move to journal \(intent.targetID) is pending, and '\(path)' does not hold it: "
                + "plug the target in and run the move again with --to pointing at it (last seen at '\(intent.targetPath)'), "
                + "or give it up with --abort"
        case .otherMovePending(let intent):
            return "an interrupted move to journal \(intent.targetID) at '\(intent.targetPath)' is pending: "
                + "finish it first (--to '\(intent.targetPath)') or give it up with --abort"
        case .noPendingMove:
            return "no interrupted move to abort"
        case .targetNotEmpty(let path):
            return "'\(path)' holds other files and is not a journal: give an empty or new directory, e.g. '\(path)/overland'"
        case .notAMoveTarget(let path):
            return "'\(path)' is a journal that 'overland journal move' did not create; refusing to move records into it"
        case .sameJournal(let path):
            return "'\(path)' is the journal being moved, or inside it"
        case .targetFailed(let error, let report):
            return "\(error); \(Plural.count(report.segments, "segment")) (\(Plural.count(report.records, "record"))) moved, "
                + "\(Plural.count(report.remaining, "record")) that were to move stay in the source journal; free space and run the move again"
        case .journal(let error):
            return error.description
        }
    }
}
