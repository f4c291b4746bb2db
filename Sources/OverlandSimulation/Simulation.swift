import OverlandJournal
import OverlandSync

/// Runs a workload (`Step`s) on a simulated disk: the logger's appends, commits, seals and
/// time index, syncs of several destinations through the cursor and state writes a sync
/// makes, retention and repair, with power cuts; after each cut the real code recovers
/// the journal from the crash state and the invariants (`Invariants`) are checked.
public final class Simulation {
    public static let journalPath = "/data/journal"
    public static let destinations = ["default", "home", "work"]
    /// The largest batch: the sync engine's smallest allowed batch size.
    public static let maxBatch = 50

    let ignores: SimulatedDisk.Ignores
    var disk: SimulatedDisk
    var journal: Journal?
    var appender: JournalAppender?
    var model = Model()
    /// Crash states recovered and checked.
    public private(set) var crashStates = 0
    /// What happened, a line per step.
    public private(set) var log: [String] = []

    /// What the outside world knows: which points were committed, which each receiver holds.
    struct Model {
        var nextID = 1
        /// Points whose commit returned (or that a recovered journal held): never to be lost.
        var committed: Set<Int> = []
        /// Per destination, how many times its receiver stored each point.
        var received: [[Int: Int]] = Array(repeating: [:], count: Simulation.destinations.count)
        /// Per destination, requests whose records may legitimately arrive twice (an
        /// acknowledgement lost, a duplicate, a power cut between delivery and cursor).
        var resendAllowance: [Int] = Array(repeating: 0, count: Simulation.destinations.count)
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
                return Violation(step: index, kind: "error", message: "\(step): \(failure)")
            }
            if case .cut(_, let image)? = pendingCut {
                pendingCut = nil
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
        disk = image
        model.cuts += 1
        for index in model.resendAllowance.indices { model.resendAllowance[index] += 1 }
        crashStates += 1
        do {
            try open()
        } catch {
            return Violation(step: step, kind: "recovery", message: "recovery failed: \(error)")
        }
        return Invariants.check(journal!, model: &model).map { Violation(step: step, kind: $0.kind, message: $0.message) }
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
