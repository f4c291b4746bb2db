import OverlandJournal
import OverlandRecorder
@testable import OverlandSimulation
import Testing

/// The explorer sharpened (issue 36): the invariants it gained, the faults the process
/// survives, the FAT model of the stick and the workload's reach, each shown to fail on a
/// made-up state that breaks it and to hold on the real code.
@Suite struct SharperExplorerTests {
    /// A trip whose start returned, neither active nor recorded anywhere: found; active, or
    /// its record in the journal or at a receiver: not.
    @Test func tripStartedThenLostIsFound() async throws {
        let simulation = Simulation()
        #expect(await simulation.run([.tripStart(mode: "car")]) == nil)
        let journal = try Journal(path: Simulation.journalPath, fileSystem: simulation.disk)
        let started = try #require(simulation.model.startedTrips.first)
        #expect(try Invariants.trips(journal, seen: [:], stick: Invariants.Stick(), model: &simulation.model) == nil)
        try Trip.clear(in: journal)
        var model = simulation.model
        #expect(try #require(try Invariants.trips(journal, seen: [:], stick: Invariants.Stick(), model: &model)).kind == "trip-lost")
        model.received[1][started] = 1
        #expect(try Invariants.trips(journal, seen: [:], stick: Invariants.Stick(), model: &model) == nil)
        #expect(model.startedTrips.isEmpty, "a trip found recorded is protected by invariant 1 from then on")
        model = simulation.model
        #expect(try Invariants.trips(journal, seen: [started: 3], stick: Invariants.Stick(), model: &model) == nil)
    }

    /// Resends are allowed record by record, as each cause makes them: a receiver that got
    /// one record more than its allowance fails.
    @Test func resendAllowanceCountsRecords() throws {
        var model = Simulation.Model()
        model.received[0] = [1: 2, 2: 2, 3: 1]
        model.resendAllowance[0] = 1
        #expect(try #require(Invariants.resends(model)).kind == "resends")
        model.resendAllowance[0] = 2
        #expect(Invariants.resends(model) == nil)
    }

    /// A segment set aside by recovery after an honest power cut fails the run: a commit
    /// whose tail a cut left torn is cut by recovery, never set aside (here a segment is
    /// damaged by hand in the middle, as a recovery that left a torn tail would leave it).
    @Test func segmentSetAsideAfterAnHonestCutIsFound() async throws {
        let simulation = Simulation()
        #expect(await simulation.run([.log(count: 30, pad: 200), .log(count: 30, pad: 200)]) == nil)
        // The run ended with a cut and a recovery; damage the newest segment's first member.
        let journal = try Journal(path: Simulation.journalPath, fileSystem: simulation.disk)
        let name = try #require(try journal.segments().last)
        let path = Simulation.journalPath + "/segments/" + name.fileName
        var bytes = try simulation.disk.readFile(path, limit: 1 << 20)
        bytes[bytes.count / 4] ^= 0xFF
        try simulation.disk.replaceAtomically(path, with: bytes)
        let violation = simulation.powerCut(image: 1, step: 0)
        #expect(violation?.kind == "set-aside", "\(violation.map { "\($0)" } ?? "none")")
    }

    /// The explorer's faults reach the code that handles them: a failed append
    /// (`appendDurably`'s catch, after which the appender distrusts its segment), a failed
    /// fsync that drops its pages, and a stick pulled mid-move (`targetFailed`); after each
    /// the process carries on and every invariant holds on what it left.
    @Test(arguments: [SimulatedDisk.Fault.Kind.eio, .enospc, .fsyncDrops])
    func loggerCarriesOnAfterAFailedCommit(_ kind: SimulatedDisk.Fault.Kind) async throws {
        // The second commit appends to the active segment: write (change 1), fsync (2).
        let change = kind == .eio ? 2 : 1
        let steps: [Step] = [.log(count: 10, pad: 100), .fault(change: change, kind: kind, count: 1, image: 1),
                             .log(count: 10, pad: 100), .log(count: 5, pad: 100)]
        let simulation = Simulation()
        #expect(await simulation.run(steps) == nil)
        #expect(simulation.coverage.faults == 1)
        #expect(simulation.model.committed.isSuperset(of: Set(1...25)), "the failed commit's points were written by the next")
    }

    @Test func stickPulledMidMoveStopsTheMoveAndNothingIsLost() async throws {
        var fired = 0
        for change in stride(from: 1, through: 40, by: 3) {
            let steps: [Step] = [.log(count: 30, pad: 250), .seal, .log(count: 5, pad: 10),
                                 .fault(change: change, kind: .vanish, count: 1, image: UInt64(change)), .move(seal: false),
                                 .move(seal: false), .stickEngine(outcomes: [.acknowledged, .acknowledged])]
            let simulation = Simulation()
            let violation = await simulation.run(steps)
            #expect(violation == nil, "change \(change): \(violation.map { "\($0)" } ?? "")")
            fired += simulation.coverage.faults
        }
        #expect(fired > 8)
    }

    /// On FAT a rename is two directory writes: a power cut may leave both names or
    /// neither. Elsewhere it is one change.
    @Test func renameOnFATMayKeepBothNamesOrNeither() throws {
        var outcomes: Set<[Bool]> = []
        for seed in UInt64(0)..<64 {
            let disk = SimulatedDisk(fatTrees: ["/stick"])
            try disk.makeDirectory("/stick")
            try disk.replaceAtomically("/stick/a", with: [1])
            try disk.rename("/stick/a", "/stick/b")
            var random = SeededRandom(seed: seed)
            let image = disk.cutPowerNow(using: &random)
            outcomes.insert([image.kind("/stick/a") == .file, image.kind("/stick/b") == .file])
        }
        #expect(outcomes == [[true, false], [false, true], [true, true], [false, false]])
    }

    /// On FAT a file grown without its fsync may show stale clusters past its old end;
    /// elsewhere zeros.
    @Test func grownFileOnFATShowsStaleClusters() throws {
        var stale = false
        for seed in UInt64(0)..<32 {
            let disk = SimulatedDisk(fatTrees: ["/stick"])
            try disk.makeDirectory("/stick")
            try disk.replaceAtomically("/stick/f", with: [1, 2, 3])
            let fd = try disk.openForAppending("/stick/f")
            try disk.writeAll(fd, Array(repeating: 9, count: 3 * SimulatedDisk.pageSize), path: "/stick/f")
            disk.close(fd)
            var random = SeededRandom(seed: seed)
            let bytes = try disk.cutPowerNow(using: &random).readFile("/stick/f", limit: 1 << 20)
            #expect(Array(bytes.prefix(3)) == [1, 2, 3])
            if bytes.dropFirst(3).contains(where: { $0 != 0 && $0 != 9 }) { stale = true }
        }
        #expect(stale)
    }

    /// An fsync that fails drops the pages it would have written (Linux): the cache still
    /// shows them, a later fsync succeeds, and a power cut brings back the old bytes.
    @Test func fsyncThatFailsDropsItsPages() throws {
        let disk = SimulatedDisk()
        try disk.replaceAtomically("/f", with: [1, 2, 3])
        let fd = try disk.openForAppending("/f")
        try disk.writeAll(fd, [4, 5, 6], path: "/f")
        disk.injectFault(SimulatedDisk.Fault(kind: .fsyncDrops, at: disk.changes))
        #expect(throws: JournalError.self) { try disk.sync(fd, path: "/f") }
        try disk.sync(fd, path: "/f")
        disk.close(fd)
        #expect(try disk.readFile("/f", limit: 16) == [1, 2, 3, 4, 5, 6])
        var random = SeededRandom(seed: 1)
        let image = disk.cutPowerNow(using: &random)
        #expect(try image.readFile("/f", limit: 16) == [1, 2, 3, 0, 0, 0])
    }

    /// ENOSPC on a write takes part of it; a pulled tree refuses every call until it is
    /// plugged in again with what it had made durable.
    @Test func shortWriteAndPulledStick() throws {
        let disk = SimulatedDisk()
        try disk.makeDirectory("/stick")
        try disk.replaceAtomically("/stick/f", with: [1])
        let fd = try disk.openForAppending("/stick/f")
        disk.injectFault(SimulatedDisk.Fault(kind: .enospc, at: disk.changes))
        #expect(throws: JournalError.self) { try disk.writeAll(fd, [2, 3, 4, 5], path: "/stick/f") }
        #expect(try disk.readFile("/stick/f", limit: 16) == [1, 2, 3])
        disk.injectFault(SimulatedDisk.Fault(kind: .vanish, at: disk.changes, path: "/stick"))
        #expect(throws: JournalError.self) { try disk.writeAll(fd, [6], path: "/stick/f") }
        #expect(throws: JournalError.self) { try disk.readFile("/stick/f", limit: 16) }
        try disk.replaceAtomically("/elsewhere", with: [7])
        disk.close(fd)
        var random = SeededRandom(seed: 3)
        disk.replug(using: &random)
        #expect(try disk.readFile("/stick/f", limit: 16).prefix(1) == [1])
        #expect(try disk.readFile("/elsewhere", limit: 16) == [7])
    }
}

/// The workload's reach (issue 36): retention deletes what every destination sent.
@Suite struct ExplorerReachTests {
    @Test func retentionDeletesWhatEveryDestinationSent() async {
        let drain = Simulation.destinations.indices.map { Step.engine(destination: $0, batch: Simulation.maxBatch, outcomes: Array(repeating: .acknowledged, count: 12)) }
        let steps: [Step] = [.log(count: 40, pad: 301), .log(count: 40, pad: 301), .log(count: 40, pad: 301), .seal, .log(count: 1, pad: 1)] + drain + [.prune]
        let simulation = Simulation()
        let violation = await simulation.run(steps)
        #expect(violation == nil, "\(violation.map { "\($0)" } ?? "")")
        #expect(simulation.coverage.segmentsRemoved > 0, "the engine's retention or the prune step deleted the sent segment")
    }

    /// One sync run to two destinations at once: both receivers get every record, and a
    /// cut at any change of the run leaves every invariant (the floor below every cursor
    /// file) holding.
    @Test func twoDestinationsAtOnce() async {
        let steps: [Step] = [.log(count: 40, pad: 10), .log(count: 40, pad: 10), .engines(destination: 0, beside: 1, outcomes: [.acknowledged, .acknowledged])]
        let simulation = Simulation()
        #expect(await simulation.run(steps) == nil)
        #expect(simulation.model.received[0].count == 80)
        #expect(simulation.model.received[1].count == 80)
        for change in 1...30 {
            let cut: [Step] = [.log(count: 40, pad: 10), .log(count: 40, pad: 10), .cut(change: change, image: UInt64(change)),
                               .engines(destination: 2, beside: 0, outcomes: [.acknowledged, .acknowledged, .acknowledged])]
            let violation = await Simulation().run(cut)
            #expect(violation == nil, "change \(change): \(violation.map { "\($0)" } ?? "")")
        }
    }
}

/// A directory fsync that fails (`dirFsyncFails`) inside a move: where it falls after a
/// moved segment's rename, the segment is on the stick, its name not durable, and the move
/// must stay pending (finished by the next), never end as a clean stop: the records would
/// be in both journals with no move pending (invariant 7, `both`: scripts/mutants M4).
@Suite struct DirectoryFsyncFaultTests {
    static let before: [Step] = [.log(count: 30, pad: 250), .seal, .log(count: 5, pad: 10)]

    @Test func aMoveWhoseRenameWasNotMadeDurableStaysPending() async throws {
        var pendingWithTheSegmentOnTheStick = 0
        for change in 1...40 {
            let fault = Step.fault(change: change, kind: .dirFsyncFails, count: 1, image: 1)
            let violation = await Simulation().run(Self.before + [fault, .move(seal: false), .move(seal: false),
                                                                  .stickEngine(outcomes: [.acknowledged, .acknowledged])])
            #expect(violation == nil, "change \(change): \(violation.map { "\($0)" } ?? "")")
            // The same, stopped right after the faulted move: pending, the segment on the stick?
            let simulation = Simulation()
            try simulation.open()
            try simulation.addDestinations()
            try simulation.disk.makeDirectory("/stick")
            for step in Self.before { #expect(await simulation.perform(step) == nil) }
            simulation.disk.injectFault(SimulatedDisk.Fault(kind: .dirFsyncFails, at: simulation.disk.changes + change - 1))
            _ = await simulation.perform(.move(seal: false))
            let journal = try #require(simulation.journal)
            let fired = simulation.disk.disarmFault() > 0
            guard fired, try journal.pendingMove() != nil, simulation.disk.kind(Simulation.stickPath + "/manifest.json") == .file else { continue }
            if try !Journal(path: Simulation.stickPath, fileSystem: simulation.disk).segments().isEmpty {
                pendingWithTheSegmentOnTheStick += 1
            }
        }
        #expect(pendingWithTheSegmentOnTheStick > 0)
    }

    /// journal-sim seed 1130 (the stick on FAT): a directory fsync on the stick failed after
    /// a moved segment's rename; the move run again found the segment complete, passed the
    /// cursors and deleted the source file, the segment's name still not durable: the final
    /// cut took it back, and its points were lost. A resumed move now makes the target's
    /// segment names durable before the source gives one up.
    @Test func aResumedMoveMakesTheSegmentItFoundDurable() async {
        let steps: [Step] = [.log(count: 18, pad: 286), .log(count: 18, pad: 188), .seal, .log(count: 7, pad: 291), .seal,
                             .log(count: 35, pad: 24), .seal, .fault(change: 53, kind: .stickDirFsyncFails, count: 1, image: 0),
                             .move(seal: false), .move(seal: false)]
        let violation = await Explorer().replay(steps, stickOnFAT: true)
        #expect(violation == nil, "\(violation.map { "\($0)" } ?? "")")
        #expect(await Explorer().run(seed: 1130).violation == nil)
    }
}
