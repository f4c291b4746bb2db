import OverlandJournal

/// What a sync run did, for the command line to print and to turn into an exit status.
public struct SyncReport: Sendable, Equatable {
    /// How the run ended.
    public enum Outcome: Sendable, Equatable {
        /// Everything that was waiting was delivered.
        case delivered
        /// Nothing was waiting.
        case nothingToSend
        /// `maxTime` ran out between batches; what was sent is delivered, the rest waits.
        case maxTimeReached
        /// The send interval since the last delivery has not passed yet.
        case notDue(nextSend: Int64)
        /// Earlier attempts failed; the backoff holds the next attempt until then.
        case backingOff(until: Int64)
        /// The send interval is off: nothing is sent until it is changed back (or `--now`).
        case sendingOff
        /// Another run holds this journal's sync lock.
        case alreadyRunning
        /// The task running the sync was cancelled (the command was interrupted); what was
        /// acknowledged is recorded, the batch in flight waits. Not counted as a failure.
        case interrupted
        /// An attempt failed in a way worth retrying: network, time-out, 5xx, other 4xx,
        /// not acknowledged. Nothing was lost; the batch waits.
        case retryLater
        /// The server refused the credentials (401 or 403).
        case refused(status: Int)
        /// The configuration cannot work.
        case configurationError
        /// The journal could not be read or its cursor written.
        case journalError(JournalError)
        /// The sync's own state (lock, `sync.json`) could not be read or written.
        case stateError
    }

    /// How the run ended.
    public var outcome: Outcome
    /// A lower-case phrase saying why, for the terminal; nil when there is nothing to add.
    public var message: String?
    /// Points carried in delivered requests.
    public var sentRecords = 0
    /// Records passed over by the logging mode (the `latest` and `owntracks` modes send
    /// only the newest point).
    public var skippedRecords = 0
    /// Records passed over because the receiver cannot take them: trip, visit and action
    /// records for a receiver of locations, and lines no point can be read from.
    public var notCarriedRecords = 0
    /// Records a move brought into this journal that the receiver had acknowledged before
    /// it (`state/carried.json`): passed, not sent again.
    public var alreadyAcknowledged: UInt64 = 0
    /// Delivered requests.
    public var batches = 0
    /// Records still waiting after the run (from the cursor to the journal's end).
    public var backlog: UInt64 = 0
    /// The HTTP status of the last reply, if any.
    public var lastStatus: Int?
    /// The last `geocode.full_name` the server sent in this run.
    public var geocode: String?
    /// Things worth a warning that did not change the outcome (a retention or state-file
    /// problem, an unreadable old state file).
    public var warnings: [String] = []
    /// What reading back found, when the destination verifies (`ReadBackPass`).
    public var readBack: ReadBackReport?

    /// Creates a report.
    public init(outcome: Outcome, message: String? = nil) {
        self.outcome = outcome
        self.message = message
    }
}

/// Progress during a run, after each delivered request.
public struct SyncProgress: Sendable, Equatable {
    /// Points delivered so far in this run.
    public var sentRecords: Int
    /// Requests delivered so far.
    public var batches: Int
    /// Records still waiting (an estimate while the logger appends).
    public var backlog: UInt64

    /// Creates a progress value.
    public init(sentRecords: Int, batches: Int, backlog: UInt64) {
        self.sentRecords = sentRecords
        self.batches = batches
        self.backlog = backlog
    }
}
