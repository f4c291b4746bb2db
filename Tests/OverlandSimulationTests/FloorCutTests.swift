import OverlandJournal
@testable import OverlandSimulation
import Testing

/// The cuts where the floor can pass a cursor a crash takes back (issue 36, scripts/mutants
/// C1 and C7): the disk's planned cut right after a name is made durable, the fault on the
/// directory fsync that would make one name durable, the workload groups that line them
/// up, and the real code holding at every such cut, each crash image tried.
@Suite struct FloorCutTests {
    static func disk() throws -> SimulatedDisk {
        let disk = SimulatedDisk()
        try disk.makeDirectory("/d")
        try disk.syncDirectory("/")
        return disk
    }

    /// The power goes off at the change after the second time `/d/f`'s new name is made
    /// durable: both replacements are on the disk, the next change fails.
    @Test func cutRightAfterANameIsMadeDurable() throws {
        let disk = try Self.disk()
        disk.cutPower(afterNameOf: "/d/f", isMadeDurable: 2)
        try disk.replaceAtomically("/d/other", with: [9])
        try disk.replaceAtomically("/d/f", with: [1])
        #expect(!disk.isDead)
        try disk.replaceAtomically("/d/f", with: [2])
        #expect(!disk.isDead, "the cut comes with the next change, not before")
        #expect(throws: JournalError.self) { try disk.replaceAtomically("/d/g", with: [3]) }
        #expect(disk.isDead)
        var random = SeededRandom(seed: 1)
        let image = disk.crashImage(using: &random, cut: .durableOnly)
        #expect(try image.readFile("/d/f", limit: 8) == [2])
    }

    /// `nameSyncFails` strikes only the directory fsync that would make its file's rename
    /// durable: another file's passes; its own fails, and a cut keeping only what was
    /// durable takes the new name back.
    @Test func nameSyncFailsStrikesItsOwnRenameOnly() throws {
        let disk = try Self.disk()
        try disk.replaceAtomically("/d/b", with: [1])
        disk.injectFault(SimulatedDisk.Fault(kind: .nameSyncFails, at: disk.changes, path: "/d/b"))
        try disk.replaceAtomically("/d/a", with: [7])
        #expect(disk.faultsFired == 0)
        #expect(throws: JournalError.self) { try disk.replaceAtomically("/d/b", with: [2]) }
        #expect(disk.faultsFired == 1)
        #expect(try disk.readFile("/d/b", limit: 8) == [2], "the new name is in the cache")
        disk.powerOff()
        var random = SeededRandom(seed: 1)
        let image = disk.crashImage(using: &random, cut: .durableOnly)
        #expect(try image.readFile("/d/b", limit: 8) == [1], "a cut takes it back")
        #expect(try image.readFile("/d/a", limit: 8) == [7])
    }

    /// Seeds 1-100 hold both groups, about one seed in four each, each whole: nothing put
    /// between a planned cut or fault and its step.
    @Test func theWorkloadLinesBothUp() throws {
        var paced = 0
        var renames = 0
        for seed in UInt64(1)...100 {
            let steps = Step.workload(seed: seed)
            for (index, step) in steps.enumerated() {
                switch step {
                case .pacedRun:
                    paced += 1
                    let cut = try #require(index > 0 ? steps[index - 1] : nil)
                    #expect(cut.kind == "cut" && cut.description.hasPrefix("power cut right after the floor"), "seed \(seed)")
                case .fault(_, .nameSyncFails, _, _):
                    renames += 1
                    let moves = steps.dropFirst(index + 1).prefix(3).map(\.kind)
                    #expect(moves == ["move", "cut", "move"], "seed \(seed): \(moves)")
                default: break
                }
            }
        }
        #expect((15...40).contains(paced), "\(paced)")
        #expect((15...40).contains(renames), "\(renames)")
    }

    /// A destination lowered to the start, synced paced beside the others: every floor the
    /// run makes durable, cut right after, each crash image, leaves every invariant holding.
    @Test func pacedRunCutAfterEachFloor() async {
        for paced in Simulation.destinations.indices {
            for write in 1...4 {
                let steps: [Step] = [.log(count: 40, pad: 10), .log(count: 40, pad: 10), .engine(destination: (paced + 1) % 3, batch: 50, outcomes: [.acknowledged]),
                                     .lowerCursor(destination: paced), .cutAfterFloor(write: write, image: UInt64(write)),
                                     .pacedRun(paced: paced, batches: 3), .pacedRun(paced: paced, batches: 2)]
                let simulation = Simulation()
                let violation = await simulation.run(steps)
                #expect(violation == nil, "paced \(paced), write \(write): \(violation.map { "\($0)" } ?? "")")
                #expect(simulation.crashStates == 4, "three images at the planned cut, one at the end")
            }
        }
    }

    /// A move whose pass failed the directory fsync after its last cursor's rename, run
    /// again and cut right after it raises the floor: the move stayed pending, and nothing
    /// is lost or passed, on either model of the stick.
    @Test(arguments: [false, true])
    func moveRunAgainAfterItsLastCursorsNameFailed(stickOnFAT: Bool) async throws {
        let steps: [Step] = [.log(count: 30, pad: 250), .seal, .log(count: 1, pad: 1),
                             .fault(change: 1, kind: .nameSyncFails, count: 1, image: 1), .move(seal: false),
                             .cutAfterFloor(write: 1, image: 2), .move(seal: false), .stickEngine(outcomes: [.acknowledged])]
        let simulation = Simulation(stickOnFAT: stickOnFAT)
        let violation = await simulation.run(steps)
        #expect(violation == nil, "\(violation.map { "\($0)" } ?? "")")
        #expect(simulation.coverage.faults == 1, "the pass's directory fsync failed")
        #expect(simulation.log.contains { $0.hasPrefix("power cut after") }, "\(simulation.log)")
        #expect(simulation.crashStates == 4)
    }
}
