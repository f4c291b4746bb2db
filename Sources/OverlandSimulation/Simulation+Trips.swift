import OverlandJournal
import OverlandLogger
import OverlandRecorder
import OverlandSettings

/// Trips in the workload, written as overland does: `overland trip start` saves the
/// active trip (`Trip.save`), the logger's automatic stop (`AutomaticTripStop`) appends
/// and commits the trip's record, then clears the trip; a stop cut short after its commit
/// finds the record and only clears the trip (`TripSummary.isRecorded`).
extension Simulation {
    /// The settings the stop reads: this device's id, no battery.
    static let tripSettings: Settings = {
        var settings = Settings()
        settings.deviceID = "sim"
        return settings
    }()

    /// Starts a trip unless one is running, as `overland trip start` does (under the
    /// trip's lock, from the journal's end). One trip a second at most: its start is its id.
    func startTrip(_ mode: String, _ journal: Journal) throws(JournalError) {
        let held = try Trip.lockForChange(in: journal)
        defer { withExtendedLifetime(held) {} }
        guard try Trip.active(in: journal) == nil else { return }
        disk.now += 1
        try Trip(mode: mode, start: disk.now, startSequence: try journal.endSequence()).save(in: journal)
        model.startedTrips.insert(Invariants.tripID(start: disk.now))
    }

    /// The logger's automatic stop. Its record, once the stop returned, is never to be lost;
    /// a stop must not write the record of a trip whose record the journal still holds (a
    /// stop cut short by a power cut before it cleared the trip: `TripSummary.isRecorded`).
    /// When that record has left the journal since (moved to the stick, or removed by
    /// retention once every destination had it), the stop cannot see it and writes it
    /// again: a duplicate, never a loss (`Model.writtenTwice`). It is counted so before
    /// the stop runs, since a power cut inside the stop may keep the second copy without the
    /// stop returning (issue 26, seed 709558469): every check then treats it alike.
    func stopTrip(_ journal: Journal, _ appender: JournalAppender) throws {
        guard let trip = try Trip.active(in: journal) else { return }
        let id = Invariants.tripID(start: trip.start)
        let hadRecord = model.committed.contains(id)
        let heldBefore = try Self.holds(id, in: journal, from: trip.startSequence)
        let end = try journal.endSequence()
        let mayWriteAgain = hadRecord && !heldBefore && !model.writtenTwice.contains(id)
        if mayWriteAgain { allowTripWrittenAgain(id, by: 1) }
        disk.now += 1
        guard try AutomaticTripStop.stop(in: journal, appender: appender, settings: Self.tripSettings, now: disk.now) else { return }
        let writtenAgain = hadRecord ? try Self.holds(id, in: journal, from: end) : false
        if writtenAgain && heldBefore {
            throw SimulationFailure(kind: "trip-twice", message: "the record of the trip started at \(trip.start) was written again by a stop after a cut, though the journal held it")
        }
        if writtenAgain { coverage.tripsWrittenAgain += 1 }
        if mayWriteAgain && !writtenAgain { allowTripWrittenAgain(id, by: -1) }
        model.committed.insert(id)
    }

    /// Counts (`by` 1) or uncounts (-1) a trip record a stop may write a second time: its
    /// id allowed twice (`Model.writtenTwice`), each receiver's resend allowance one more.
    func allowTripWrittenAgain(_ id: Int, by change: Int) {
        if change > 0 { model.writtenTwice.insert(id) } else { model.writtenTwice.remove(id) }
        for index in model.resendAllowance.indices { model.resendAllowance[index] += change }
    }

    /// Whether `journal` holds the record `id` at or past `sequence`.
    static func holds(_ id: Int, in journal: Journal, from sequence: UInt64) throws(JournalError) -> Bool {
        let reader = try journal.records(from: sequence)
        while let record = try reader.next() {
            if Invariants.recordID(record.line) == id { return true }
        }
        return false
    }
}
