@testable import OverlandSimulation
import Testing

/// The explorer's moves to the simulated stick and its trips (docs/reliability.md,
/// invariants 7 and 8): the workload exercises them, their checks can fail, and the seeds
/// that found something replay as they should now.
@Suite struct MoveAndTripWorkloadTests {
    /// Over a few seeds the workload moves records, syncs the stick, records trips and cuts
    /// the power inside moves and trip stops (a workload that stopped doing so would pass
    /// every invariant and prove nothing).
    @Test func workloadMovesAndRecordsTrips() async {
        var coverage = Coverage()
        for seed in UInt64(41)...70 {
            let outcome = await Explorer().run(seed: seed)
            #expect(outcome.violation == nil, "seed \(seed): \(outcome.violation.map { "\($0)" } ?? "")")
            coverage = coverage + outcome.coverage
        }
        #expect(coverage.movedRecords > 100)
        #expect(coverage.stickReceived > 0)
        #expect(coverage.tripRecords > 5)
        #expect(coverage.cutsInMoves > 5)
        #expect(coverage.cutsInTripStops > 0)
        #expect(coverage.faults > 5, "faults the process survives (issue 36)")
        #expect(coverage.segmentsRemoved > 5, "retention deletes")
    }

    /// Seed 1 failed once a move emptied the journal (every segment moved): its cursors
    /// stood past `endSequence()`, 0 with no segment left, which section 9 allows (an
    /// appender continues at the highest cursor). The check now compares with the highest
    /// end the journal reached.
    @Test func cursorsAfterAMoveThatEmptiedTheJournal() async {
        let steps: [Step] = [.log(count: 13, pad: 221), .move(seal: false), .move(seal: true)]
        #expect(await Explorer().replay(steps) == nil)
    }

    /// Seed 64 (of the workload before issue 36): a trip stop cut after its record's
    /// commit, before it cleared the trip; the record moved to the stick (`move --seal`);
    /// the next stop, not finding it in the journal, wrote it again. A duplicate (the trip
    /// reaches a receiver twice), never a loss; a stop that writes again a record the
    /// journal still holds fails (trip-twice). Its trace, the cut at each change of the stop.
    @Test func tripRecordMovedAwayBeforeTheStopRanAgain() async throws {
        var writtenAgain = 0
        for change in 1...6 {
            let steps: [Step] = [.tripStart(mode: "car"), .log(count: 5, pad: 10), .cut(change: change, image: 7), .tripStop,
                                 .move(seal: true), .tripStop, .stickEngine(outcomes: [.acknowledged])]
            let simulation = Simulation()
            let violation = await simulation.run(steps)
            #expect(violation == nil, "change \(change): \(violation.map { "\($0)" } ?? "")")
            writtenAgain += simulation.coverage.tripsWrittenAgain
        }
        #expect(writtenAgain > 0)
    }

    /// Seed 67 (of the workload before issue 36): a trip stop cut after its record's
    /// commit, before it cleared the trip; the next stop finds the record in the journal
    /// (`TripSummary.isRecorded`) and only clears the trip. With `isRecorded` never set (a
    /// scratch build, mutant T2 of scripts/mutants) it fails: trip-twice.
    @Test func stopAfterACutDoesNotWriteTheTripAgain() async {
        var cutInside = 0
        for change in 1...6 {
            let steps: [Step] = [.tripStart(mode: "walk"), .log(count: 3, pad: 10), .cut(change: change, image: 3), .tripStop, .tripStop]
            let simulation = Simulation()
            let violation = await simulation.run(steps)
            #expect(violation == nil, "change \(change): \(violation.map { "\($0)" } ?? "")")
            #expect(simulation.coverage.tripRecords > 0 || change == 1)
            cutInside += simulation.coverage.cutsInTripStops
        }
        #expect(cutInside > 0)
    }

    /// A record on the stick and unsent in the source, no move pending: found.
    @Test func recordSendableFromBothIsFound() throws {
        let stick = Invariants.Stick(seen: [7: 0], cursor: 0)
        let finding = try #require(Invariants.sendableFromBoth([7: 5], cursors: [6, 5, 9], stick: stick, model: Simulation.Model()))
        #expect(finding.kind == "both")
        #expect(Invariants.sendableFromBoth([7: 5], cursors: [6, 6, 9], stick: stick, model: Simulation.Model()) == nil)
    }

    /// A record every destination had when the move began, found on the stick: found.
    @Test func acknowledgedRecordOnTheStickIsFound() throws {
        var model = Simulation.Model()
        model.acknowledged = [3]
        let finding = try #require(Invariants.observe(Invariants.Stick(seen: [3: 0, 4: 1]), model: &model))
        #expect(finding.kind == "moved-sent")
        model.acknowledged = []
        #expect(Invariants.observe(Invariants.Stick(seen: [3: 0, 4: 1]), model: &model) == nil)
        #expect(model.targetIDs == [3, 4])
    }

    /// A committed point gone from the source: kept when on the stick unsent or at the
    /// stick's receiver; lost when neither; forgotten when behind the stick's cursor and
    /// not at its receiver.
    @Test func pointLeftTheSourceIsOnTheStickOrLost() throws {
        var model = Simulation.Model()
        model.committed = [1]
        #expect(Invariants.lost([:], cursors: [0, 0, 0], stick: Invariants.Stick(seen: [1: 4], cursor: 4), model: model) == nil)
        #expect(try #require(Invariants.lost([:], cursors: [0, 0, 0], stick: Invariants.Stick(), model: model)).kind == "lost")
        #expect(try #require(Invariants.lost([:], cursors: [0, 0, 0], stick: Invariants.Stick(seen: [1: 4], cursor: 5), model: model)).kind == "forgotten")
        model.received[Simulation.stick][1] = 1
        #expect(Invariants.lost([:], cursors: [0, 0, 0], stick: Invariants.Stick(seen: [1: 4], cursor: 5), model: model) == nil)
    }
}
