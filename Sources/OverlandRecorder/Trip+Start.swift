import OverlandJournal

extension Trip {
    /// What `start` did: started the trip, or found one running (it is stopped first).
    public enum StartOutcome: Sendable, Equatable {
        case started(Trip)
        case alreadyRunning(Trip)
    }

    /// Starts a `mode` trip at `now` in `journal` (from the journal's next record), under
    /// the trip's lock, unless one is running.
    public static func start(mode: String, in journal: Journal, now: Int64) throws(JournalError) -> StartOutcome {
        let held = try lockForChange(in: journal)
        defer { withExtendedLifetime(held) {} }
        if let running = try active(in: journal) { return .alreadyRunning(running) }
        let trip = Trip(mode: mode, start: now, startSequence: try journal.endSequence())
        try trip.save(in: journal)
        return .started(trip)
    }
}
