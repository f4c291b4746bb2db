import OverlandJournal
import OverlandSync

/// Runs a workload (`Step`s) on a simulated disk: the logger's appends, commits, seals and
/// time index, syncs of several destinations through the cursor and state writes a sync
/// makes, retention and repair, with power cuts; after each cut the real code recovers
/// the journal from the crash state and the invariants (`Invariants`) are checked.
public final class Simulation {
    public static let journalPath = "/data/journal"
    public static let destinations = ["default", "home", "work"]
    /// The journal on the simulated stick that `journal move` fills: a second directory
    /// tree of the same simulated disk (one power cut reaches both; every pending change of
    /// either persists or not on its own).
    public static let stickPath = "/stick/overland"
    /// Every receiver: the source's destinations, then `stick`, the destination of the
    /// machine that syncs the stick's journal.
    public static let receivers = destinations + ["stick"]
    static var stick: Int { destinations.count }
    /// The largest batch: the sync engine's smallest allowed batch size.
    public static let maxBatch = 50

    let ignores: SimulatedDisk.Ignores
    var disk: SimulatedDisk
    var journal: Journal?
    var appender: JournalAppender?
    /// The stick's journal, once a move created it.
    var target: Journal?
    var model = Model()
    /// Crash states recovered and checked.
    public private(set) var crashStates = 0
    /// What happened, a line per step.
    public private(set) var log: [String] = []
    /// How much of the move and the trips a run exercised (`Coverage`).
    public internal(set) var coverage = Coverage()

    /// What the outside world knows: which points were committed, which each receiver holds.
    struct Model {
        var nextID = 1
        /// Points whose commit returned (or that a recovered journal held): never to be lost.
        var committed: Set<Int> = []
        /// Per destination, how many times its receiver stored each point.
        var received: [[Int: Int]] = Array(repeating: [:], count: Simulation.receivers.count)
        /// Per destination, requests whose records may legitimately arrive twice (an
        /// acknowledgement lost, a duplicate, a power cut between delivery and cursor).
        var resendAllowance: [Int] = Array(repeating: 0, count: Simulation.receivers.count)
        /// Points seen in the stick's journal so far.
        var targetIDs: Set<Int> = []
        /// The highest end the journal had when looked at: before each step that removes
        /// segments (a move, retention) and after each cut.
        var highestEnd: UInt64 = 0
        /// Trips whose record a stop wrote again after a cut, the first having left the
        /// journal (moved, or removed by retention) where the stop could not see it: their
        /// records may be in both journals, or twice in one, and reach a receiver twice.
        var tripsWrittenAgain: Set<Int> = []
        /// Points the source's floor had passed (sent to every destination) when a move
        /// began, and not then on the stick: none may ever reach the stick.
        var acknowledged: Set<Int> = []
        var cuts = 0
    }

    public init(ignores: SimulatedDisk.Ignores = .nothing) {
        self.ignores = ignores
        disk = SimulatedDisk(ignores: ignores)
    }

    /// Runs `steps`; returns the first violation, if any.
    public func run(_ steps: [Step]) async -> Violation? {
        do {
            try open()
            try addDestinations()
            try disk.makeDirectory("/stick")
        } catch {
            return Violation(step: -1, kind: "create", message: "cannot create the journal: \(error)")
        }
        var pendingCut: Step?
        for (index, step) in steps.enumerated() {
            if case .cut = step {
                pendingCut = step
                continue
            }
            if case .cut(let change, _)? = pendingCut { disk.cutPower(beforeChange: disk.changes + change - 1) }
            log.append(step.description)
            if let failure = await perform(step), !disk.isDead {
                return Violation(step: index, kind: failure.kind, message: "\(step): \(failure.message)")
            }
            if case .cut(_, let image)? = pendingCut {
                pendingCut = nil
                if disk.isDead { coverage.count(cutInside: step) }
                if let violation = powerCut(image: image, step: index) { return violation }
            }
        }
        // The end: a last cut, every pending change lost or kept at random.
        return powerCut(image: 0x5EED, step: steps.count)
    }

    func open() throws(JournalError) {
        let journal = try Journal(path: Self.journalPath, create: true, deviceID: "sim", machine: "sim", now: disk.now,
                                  fileSystem: disk)
        self.journal = journal
        appender = try JournalAppender(journal: journal)
    }

    /// Places every destination's cursor, as `overland destination add` does.
    func addDestinations() throws(JournalError) {
        guard let journal, let lock = try journal.tryLockCursors() else { return }
        defer { withExtendedLifetime(lock) {} }
        for name in Self.destinations { try journal.advanceCursor(for: CursorName(name)!, to: 0) }
    }

    /// Cuts the power (now, if the step did not reach its planned cut), recovers from a
    /// crash image, and checks the invariants.
    func powerCut(image seed: UInt64, step: Int) -> Violation? {
        var random = SeededRandom(seed: seed)
        let image = disk.isDead ? disk.crashImage(using: &random) : disk.cutPowerNow(using: &random)
        log.append("power cut after \(disk.changes) changes")
        appender = nil
        journal = nil
        target = nil
        disk = image
        model.cuts += 1
        for index in model.resendAllowance.indices { model.resendAllowance[index] += 1 }
        crashStates += 1
        coverage.movedRecords = model.targetIDs.count
        coverage.stickReceived = model.received[Self.stick].count
        coverage.tripRecords = model.committed.filter { $0 < 0 }.count
        do {
            try open()
            try openTarget()
        } catch {
            return Violation(step: step, kind: "recovery", message: "recovery failed: \(error)")
        }
        return Invariants.check(journal!, target: target, model: &model).map { Violation(step: step, kind: $0.kind, message: $0.message) }
    }
}

/// How much of a run went to moves and trips, counted at its last cut: so that a test
/// can tell a workload that exercises them from one that no longer does.
public struct Coverage: Sendable, Equatable {
    /// Records seen on the stick, and of those, stored by the stick's receiver.
    public var movedRecords = 0
    public var stickReceived = 0
    /// Trip records committed (or found by recovery).
    public var tripRecords = 0
    /// Power cuts that came inside a move, and inside a trip stop.
    public var cutsInMoves = 0
    public var cutsInTripStops = 0
    /// Trip records a stop wrote again, the first gone from the journal (`stopTrip`).
    public var tripsWrittenAgain = 0

    public init(movedRecords: Int = 0, stickReceived: Int = 0, tripRecords: Int = 0, cutsInMoves: Int = 0, cutsInTripStops: Int = 0,
                tripsWrittenAgain: Int = 0) {
        self.tripsWrittenAgain = tripsWrittenAgain
        self.movedRecords = movedRecords
        self.stickReceived = stickReceived
        self.tripRecords = tripRecords
        self.cutsInMoves = cutsInMoves
        self.cutsInTripStops = cutsInTripStops
    }

    mutating func count(cutInside step: Step) {
        switch step {
        case .move: cutsInMoves += 1
        case .tripStop: cutsInTripStops += 1
        default: break
        }
    }

    public static func + (lhs: Coverage, rhs: Coverage) -> Coverage {
        Coverage(movedRecords: lhs.movedRecords + rhs.movedRecords, stickReceived: lhs.stickReceived + rhs.stickReceived,
                 tripRecords: lhs.tripRecords + rhs.tripRecords, cutsInMoves: lhs.cutsInMoves + rhs.cutsInMoves,
                 cutsInTripStops: lhs.cutsInTripStops + rhs.cutsInTripStops,
                 tripsWrittenAgain: lhs.tripsWrittenAgain + rhs.tripsWrittenAgain)
    }
}

/// An invariant that did not hold, after the step numbered `step`.
public struct Violation: Sendable, Equatable, CustomStringConvertible {
    public let step: Int
    /// Which invariant (a short word: "lost", "floor", "damage", ...).
    public let kind: String
    public let message: String
    public var description: String { "after step \(step): [\(kind)] \(message)" }
}
