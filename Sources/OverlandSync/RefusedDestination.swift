import OverlandJournal

/// A destination whose settings the sync refuses before anything is sent (what
/// `Destination.problems` finds, the check `overland destination set` ran first): it
/// reports its refusal as a configuration error and sends nothing.
public struct RefusedDestination: DestinationSender {
    public let name: CursorName
    /// The first problem, in the words `set` refused it with.
    public let problem: String

    public init(name: CursorName, problem: String) {
        self.name = name
        self.problem = problem
    }

    public var refusal: String? { problem }

    public func run(journal: Journal, holding lock: JournalLock, sendNow: Bool, onIssue: JournalIssueHandler?) async -> SyncReport {
        SyncReport(outcome: .configurationError, message: problem)
    }

    public func preview(journal: Journal, onIssue: JournalIssueHandler?) throws -> DestinationPreview { .nothingToSend }
}
