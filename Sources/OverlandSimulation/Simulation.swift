import OverlandJournal
import OverlandSettings
import OverlandSync
import Synchronization

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
    /// The cursor file a move's pass writes last (in name order: the extra destinations'
    /// names sort before it), where `nameSyncFails` strikes.
    static var lastCursorPath: String { journalPath + "/cursors/" + destinations.last! + ".json" }
    /// Every receiver: the source's destinations, then `stick`, the destination of the
    /// machine that syncs the stick's journal.
    public static let receivers = destinations + ["stick"]
    static var stick: Int { destinations.count }
    /// The largest batch: the sync engine's smallest allowed batch size.
    public static let maxBatch = 50
    /// The logger's policy: small segments, sealed by size or by age (seconds of the
    /// simulated clock), commits of several members, most of them large enough to be kept
    /// as they are by a seal (appended in place when all are).
    static let policy: JournalPolicy = {
        var policy = JournalPolicy()
        policy.commitBytes = 8 << 10
        policy.segmentMaxBytes = 48 << 10
        policy.segmentMaxAge = 25
        policy.sealedMemberBytes = 16 << 10
        return policy
    }()

    let ignores: SimulatedDisk.Ignores
    var disk: SimulatedDisk
    var journal: Journal?
    var appender: JournalAppender?
    /// The stick's journal, once a move created it.
    var target: Journal?
    var model = Model()
    /// Crash states recovered and checked.
    public private(set) var crashStates = 0
    /// The most changes a step of each kind made so far (`reach`).
    var longest: [String: Int] = [:]
    /// A record the other destination of an `engines` step sent though it is on the stick.
    var besideFailure: SimulationFailure?
    /// What happened, a line per step.
    public private(set) var log: [String] = []
    /// How much of the move and the trips a run exercised (`Coverage`).
    public internal(set) var coverage = Coverage()
    /// Segments recovery or repair set aside (`JournalIssue.setAside`) since the last look:
    /// after an honest power cut there must be none (a torn tail is cut, not set aside).
    let setAside = SetAsideLog()

    /// What the outside world knows: which points were committed, which each receiver holds.
    struct Model {
        var nextID = 1
        /// Points whose commit returned (or that a recovered journal held): never to be lost.
        var committed: Set<Int> = []
        /// Per destination, how many times its receiver stored each point.
        var received: [[Int: Int]] = Array(repeating: [:], count: Simulation.receivers.count)
        /// Per receiver, how many records may legitimately arrive again, each counted where
        /// it is caused: the records of a request whose acknowledgement was lost or that was
        /// stored twice, those a power cut put back behind the receiver's cursor (delivered,
        /// their cursor write lost: `allowResendsAfterCut`), a trip record written again.
        var resendAllowance: [Int] = Array(repeating: 0, count: Simulation.receivers.count)
        /// Per receiver, the records it stored during the step running now: only these can
        /// a cut or a fault in that step leave undurably recorded (a run that ends makes its
        /// cursor durable, so the pacing's "a second's batches" is a run in flight's).
        var deliveredNow: [Set<Int>] = Array(repeating: [], count: Simulation.receivers.count)
        /// Trips whose start returned and whose record no stop has committed yet: each must
        /// still be the active trip, or have its record somewhere (a stop cut short).
        var startedTrips: Set<Int> = []
        /// Points seen in the stick's journal so far.
        var targetIDs: Set<Int> = []
        /// The highest end the journal had when looked at: before each step that removes
        /// segments (a move, retention) and after each cut.
        var highestEnd: UInt64 = 0
        /// Records that may legitimately be written twice: trips whose record a stop wrote
        /// again after a cut, the first having left the journal (moved, or removed by
        /// retention) where the stop could not see it; points of a commit that failed after
        /// its segment's rename (a directory fsync that failed: the next commit writes them
        /// again, journal-format.md section 8). They may be in both journals, or twice in
        /// one, and reach a receiver twice.
        var writtenTwice: Set<Int> = []
        /// Points appended and not yet committed (the appender's memory), in order.
        var pending: [Int] = []
        /// Whether a fault the process survives fired in this run: a damaged segment may
        /// then be set aside legitimately (a short write the truncate could not take back).
        var faulted = false
        /// Points the source's floor had passed (sent to every destination) when a move
        /// began, and not then on the stick: none may ever reach the stick.
        var acknowledged: Set<Int> = []
        var cuts = 0
        /// What the settings file and `destinations.json` may hold after a cut.
        var settingsFile = ConfigurationFile<Settings>()
        var destinationsFile = ConfigurationFile<[Destination]>()
    }

    /// `stickOnFAT`: the stick's tree follows FAT's model (`SimulatedDisk.fatTrees`), the
    /// journal's the POSIX one.
    public init(ignores: SimulatedDisk.Ignores = .nothing, stickOnFAT: Bool = false) {
        self.ignores = ignores
        disk = SimulatedDisk(ignores: ignores, fatTrees: stickOnFAT ? ["/stick"] : [])
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
            if step.isCut {
                pendingCut = step
                continue
            }
            switch pendingCut {
            case .cut(let change, _)?: disk.cutPower(beforeChange: disk.changes + reach(change, into: step) - 1)
            case .fault(let change, let kind, let count, _)?:
                disk.injectFault(SimulatedDisk.Fault(kind: kind, at: disk.changes + reach(change, into: step) - 1, count: count,
                                                     path: kind == .nameSyncFails ? Self.lastCursorPath : "/stick"))
            case .cutAfterFloor(let write, _)?: disk.cutPower(afterNameOf: Self.journalPath + "/cursor.json", isMadeDurable: write)
            default: break
            }
            let faultsBefore = disk.faultsFired
            let changesBefore = disk.changes
            model.deliveredNow = Array(repeating: [], count: Self.receivers.count)
            log.append(step.description)
            let failure = await perform(step)
            // A step that changed nothing (a stop with no trip) does not shorten the reach.
            if disk.changes > changesBefore { longest[step.kind] = max(longest[step.kind] ?? 0, disk.changes - changesBefore) }
            let faulted = disk.disarmFault() > faultsBefore
            settlePending(faulted: faulted)
            if let failure, !disk.isDead, !faulted {
                return Violation(step: index, kind: failure.kind, message: "\(step): \(failure.message)")
            }
            switch pendingCut {
            case .cut(_, let image)?:
                if disk.isDead { coverage.count(cutInside: step) }
                if let violation = powerCut(image: image, step: index) { return violation }
            case .cutAfterFloor(_, let image)?:
                if disk.isDead { coverage.count(cutInside: step) }
                if let violation = powerCut(image: image, step: index, everyImage: true) { return violation }
            case .fault(_, _, _, let image)? where faulted:
                coverage.faults += 1
                if let violation = carryOn(image: image, step: index) { return violation }
            default: break
            }
            pendingCut = nil
        }
        // The end: a last cut, every pending change lost or kept at random.
        return powerCut(image: 0x5EED, step: steps.count)
    }

    func open() throws(JournalError) {
        let journal = try Journal(path: Self.journalPath, create: true, deviceID: "sim", machine: "sim", now: disk.now,
                                  fileSystem: disk)
        self.journal = journal
        appender = try makeAppender(journal)
    }

    /// The logger's appender (recovery by the real code), its issues noted.
    func makeAppender(_ journal: Journal) throws(JournalError) -> JournalAppender {
        let log = setAside
        return try JournalAppender(journal: journal, policy: Self.policy, onIssue: { issue in
            if issue.kind == .setAside { log.note(issue.file + " (" + issue.reason + ")") }
        })
    }

    /// Places every destination's cursor, as `overland destination add` does.
    func addDestinations() throws(JournalError) {
        guard let journal, let lock = try journal.tryLockCursors() else { return }
        defer { withExtendedLifetime(lock) {} }
        for name in Self.destinations { try journal.advanceCursor(for: CursorName(name)!, to: 0) }
    }

    /// The change a cut or a fault drawn as `change` falls on in `step`: the draw taken modulo the
    /// longest step of its kind so far in this run (before the first: 160 for a move, 8 for
    /// the others), so that cuts
    /// spread over a step's whole length, a move's 160 changes as a trip stop's four.
    func reach(_ change: Int, into step: Step) -> Int {
        1 + (change - 1) % max(1, longest[step.kind] ?? (step.kind == "move" ? 160 : 8))
    }

    /// Counts the appender's waiting points committed once it holds none; after a fault,
    /// the points that were waiting may be in the journal already (a commit failed after
    /// its segment's rename), so the next commit may write them twice.
    func settlePending(faulted: Bool) {
        // After a power cut the appender's memory is gone: nothing to settle.
        guard !disk.isDead else { return }
        guard let appender else {
            model.pending = []
            return
        }
        // A commit that failed after its rename leaves its records, and the next commit (in
        // the same step when it was a background commit) writes them again.
        if faulted, Set(model.pending).subtracting(model.writtenTwice).count > 0 {
            model.writtenTwice.formUnion(model.pending)
            for index in model.resendAllowance.indices { model.resendAllowance[index] += model.pending.count }
        }
        if appender.pendingRecords == 0 {
            model.committed.formUnion(model.pending)
            model.pending = []
        }
    }

    /// After a fault the process survived: a pulled stick is plugged in again (holding what
    /// it had made durable), and the invariants are checked on the state the process goes
    /// on with, without a power cut or a recovery.
    func carryOn(image seed: UInt64, step: Int) -> Violation? {
        model.faulted = true
        var random = SeededRandom(seed: seed)
        disk.replug(using: &random)
        // The logger starts again if the fault stopped it; the other machine opens the stick.
        target = nil
        do {
            if appender == nil, let journal { appender = try makeAppender(journal) }
            try openTarget()
        } catch {
            return Violation(step: step, kind: "recovery", message: "opening the journals after the fault: \(error)")
        }
        guard let journal else { return Violation(step: step, kind: "error", message: "no journal open") }
        // What the faulted step delivered may be sent again: not recorded, or recorded
        // only in a progress record whose durable write failed (a later cut takes it back).
        for index in model.resendAllowance.indices { model.resendAllowance[index] += model.deliveredNow[index].count }
        let finding = Invariants.check(journal, target: target, model: &model, live: true)
            ?? Invariants.configuration(disk, journal, model: &model, live: true)
        return finding.map { Violation(step: step, kind: $0.kind, message: "carrying on after the fault: " + $0.message) }
    }

    /// Cuts the power (now, if the step did not reach its planned cut), recovers from a
    /// crash image, and checks the invariants. `everyImage`: the images that keep only
    /// what was durable and that keep everything are recovered and checked first, each
    /// on a copy of the model, then the one `seed` draws, which the run goes on from.
    func powerCut(image seed: UInt64, step: Int, everyImage: Bool = false) -> Violation? {
        var random = SeededRandom(seed: seed)
        let inFlight = disk.isDead
        if !inFlight { disk.powerOff() }
        log.append("power cut after \(disk.changes) changes")
        let dead = disk
        for (cut, name) in everyImage ? [(SimulatedDisk.Cut.durableOnly, "only what was durable"), (.everything, "everything")] : [] {
            let saved = model
            var unused = SeededRandom(seed: seed)
            if let violation = recover(dead.crashImage(using: &unused, cut: cut), inFlight: inFlight, step: step) {
                return Violation(step: violation.step, kind: violation.kind, message: "(the crash image keeping \(name)) " + violation.message)
            }
            model = saved
        }
        return recover(dead.crashImage(using: &random), inFlight: inFlight, step: step)
    }

    /// Recovers the journals from `image` and checks the invariants.
    func recover(_ image: SimulatedDisk, inFlight: Bool, step: Int) -> Violation? {
        appender = nil
        journal = nil
        target = nil
        model.pending = []
        disk = image
        model.cuts += 1
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
        if let file = setAside.take(), ignores == .nothing, !model.faulted {
            return Violation(step: step, kind: "set-aside", message: "recovery after an honest power cut set \(file) aside")
        }
        if inFlight { allowResends() }
        model.deliveredNow = Array(repeating: [], count: Self.receivers.count)
        let finding = Invariants.check(journal!, target: target, model: &model) ?? Invariants.configuration(disk, journal!, model: &model, live: false)
        return finding.map { Violation(step: step, kind: $0.kind, message: $0.message) }
    }

    /// What a power cut or a fault inside a step can make each receiver get again: the
    /// records it stored during that step that are now at or past its cursor (their
    /// delivery not recorded, or not durably), each once. A cut between steps allows none:
    /// every run that ended made its cursor durable.
    func allowResends() {
        guard let journal else { return }
        for (index, name) in Self.receivers.enumerated() {
            let source = index == Self.stick ? target : journal
            guard let source, let place = try? source.cursor(for: CursorName(name)!),
                  let reader = try? source.records(from: place) else { continue }
            while let record = try? reader.next() {
                if let id = Invariants.recordID(record.line), model.deliveredNow[index].contains(id) { model.resendAllowance[index] += 1 }
            }
        }
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
    /// Faults the process survived (`Step.fault`), each followed by a live check.
    public var faults = 0
    /// Segments retention deleted.
    public var segmentsRemoved = 0

    public init(movedRecords: Int = 0, stickReceived: Int = 0, tripRecords: Int = 0, cutsInMoves: Int = 0, cutsInTripStops: Int = 0,
                tripsWrittenAgain: Int = 0, faults: Int = 0, segmentsRemoved: Int = 0) {
        self.tripsWrittenAgain = tripsWrittenAgain
        self.faults = faults
        self.segmentsRemoved = segmentsRemoved
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
                 tripsWrittenAgain: lhs.tripsWrittenAgain + rhs.tripsWrittenAgain, faults: lhs.faults + rhs.faults,
                 segmentsRemoved: lhs.segmentsRemoved + rhs.segmentsRemoved)
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

/// Segments set aside, noted by the appender's issue handler.
final class SetAsideLog: Sendable {
    private let files = Mutex<[String]>([])

    func note(_ file: String) { files.withLock { $0.append(file) } }

    /// The first file set aside since the last call, if any.
    func take() -> String? {
        files.withLock { files in
            defer { files.removeAll() }
            return files.first
        }
    }
}
