/// One step of a simulated workload. Its parameters are fixed when the workload is made
/// from a seed, so that any subset of a run's steps replays exactly (shrinking).
public enum Step: Sendable, Equatable, CustomStringConvertible {
    /// The logger appends `count` points (each padded with `pad` bytes) and commits.
    case log(count: Int, pad: Int)
    /// The logger seals its active segment.
    case seal
    /// The logger records the seconds of its points in the time index and saves it.
    case timeIndex
    /// A sync to `destination` sends up to `batch` records; the receiver's side goes as `outcome`.
    case sync(destination: Int, batch: Int, outcome: Delivery)
    /// A run of the sync engine (`SyncEngine.run`, protocol overland) to `destination`,
    /// batches of `batch`, its receiver answering the requests as `outcomes` say, in turn
    /// (past them: reset, and the run ends).
    case engine(destination: Int, batch: Int, outcomes: [Delivery])
    /// One overland-sync run sending to two destinations at once (`DestinationsRun`): the
    /// sync engine to `destination` as `engine` does, and at each of its requests the
    /// destination `beside` gets a batch acknowledged, its cursor made durable (and the
    /// floor rewritten) while the first is mid-run.
    case engines(destination: Int, beside: Int, outcomes: [Delivery])
    /// Retention: sealed segments every destination acknowledged are deleted.
    case prune
    /// A destination's cursor lowered to the journal's first record, as `overland
    /// destination add --from-start` places it: its receiver gets those records again.
    case lowerCursor(destination: Int)
    /// `overland journal repair`.
    case repair
    /// `overland journal move --to` the stick (`Simulation.stickPath`), finishing an
    /// interrupted move first; with `seal` the logger stops, the move seals the active
    /// segment first (`--seal`), and the logger starts again.
    case move(seal: Bool)
    /// Another machine syncs the stick's journal (the sync engine, its own destination
    /// `stick`), its receiver answering as `outcomes` say, then reset.
    case stickEngine(outcomes: [Delivery])
    /// `overland trip start --mode MODE`: the active trip saved in `state/trip.json`.
    case tripStart(mode: String)
    /// The logger's automatic stop (`AutomaticTripStop`): the trip's record appended and
    /// committed (unless a stop cut short wrote it already), then the trip cleared.
    case tripStop
    /// `overland config set`: the device id `sim-VERSION`, tracking toggled every other change.
    case settings(version: Int)
    /// `overland destination add` of the extra destination numbered `index`
    /// (`Simulation.extraDestinations`), unless it is configured.
    case destinationAdd(index: Int)
    /// `overland destination remove` of it, if it is configured.
    case destinationRemove(index: Int)
    /// One run to every destination at once, `paced` as overland-sync paces an MQTT
    /// destination (each batch recorded in its progress record alone, `durably: false`,
    /// the cursor file written at the run's end), each other destination's batch made
    /// durable at once (the floor rewritten): `batches` rounds of up to 50 records each.
    case pacedRun(paced: Int, batches: Int)
    /// The power goes off at the `change`-th change of the next step (or after it when it
    /// makes fewer); `image` seeds the choice of crash state.
    case cut(change: Int, image: UInt64)
    /// The power goes off right after the `write`-th time the next step makes a new floor
    /// durable (`cursor.json` renamed into place, its directory fsynced), or after the step
    /// when it makes fewer; every crash image is tried there (`image`'s, only what was
    /// durable, everything), so that a floor a crash can leave above a cursor is seen.
    case cutAfterFloor(write: Int, image: UInt64)
    /// A fault the process survives at the `change`-th change of the next step that it
    /// applies to (`SimulatedDisk.Fault`: EIO or ENOSPC on `count` calls in a row, an fsync
    /// that drops its pages, the stick pulled); the process carries on, and the invariants
    /// are checked on what it left, live. `image` seeds what a pulled stick kept.
    case fault(change: Int, kind: SimulatedDisk.Fault.Kind, count: Int, image: UInt64)

    /// What a receiver did with a request.
    public enum Delivery: String, Sendable, CaseIterable {
        /// Stored and acknowledged.
        case acknowledged
        /// Stored; the acknowledgement was lost (a time-out): the sender sends again.
        case ackLost = "ack-lost"
        /// The connection was reset mid-body: nothing stored.
        case reset
        /// Stored twice (a proxy's retry), acknowledged.
        case duplicated
    }

    public var description: String {
        switch self {
        case .log(let count, let pad): "log \(count) points (pad \(pad)) and commit"
        case .seal: "seal the active segment"
        case .timeIndex: "save the time index"
        case .sync(let destination, let batch, let outcome): "sync to \(Simulation.destinations[destination]): up to \(batch) records, \(outcome.rawValue)"
        case .engine(let destination, let batch, let outcomes):
            "sync engine run to \(Simulation.destinations[destination]), batches of \(batch): \(outcomes.map(\.rawValue).joined(separator: ", ")), then reset"
        case .engines(let destination, let beside, let outcomes):
            "one sync run to \(Simulation.destinations[destination]) (the engine: \(outcomes.map(\.rawValue).joined(separator: ", ")), then reset) and "
                + "\(Simulation.destinations[beside]) at once (a batch acknowledged at each request)"
        case .prune: "remove sent segments"
        case .lowerCursor(let destination): "lower the cursor of \(Simulation.destinations[destination]) to the journal's first record"
        case .repair: "journal repair"
        case .move(let seal): "journal move to the stick" + (seal ? " (--seal, the logger stopped)" : "")
        case .stickEngine(let outcomes):
            "sync engine run of the stick's journal to stick, batches of \(Simulation.maxBatch): \(outcomes.map(\.rawValue).joined(separator: ", ")), then reset"
        case .tripStart(let mode): "trip start (\(mode))"
        case .tripStop: "trip stop (automatic)"
        case .settings(let version): "config set device_id sim-\(version)" + (version % 2 == 0 ? " and tracking toggled" : "")
        case .destinationAdd(let index): "destination add \(Simulation.extraDestinations[index])"
        case .destinationRemove(let index): "destination remove \(Simulation.extraDestinations[index])"
        case .pacedRun(let paced, let batches):
            "one sync run to every destination at once, \(batches) batches: \(Simulation.destinations[paced]) paced (its progress record alone), "
                + "the others made durable at each batch"
        case .cutAfterFloor(let write, let image): "power cut right after the floor's write \(write) in the next step (every crash image; image \(image))"
        case .cut(let change, let image):
            "power cut at change \(change) of the next step, modulo the most changes a step of its kind made so far (image \(image))"
        case .fault(let change, let kind, let count, let image):
            "\(kind.rawValue)" + (count > 1 ? " \(count) times" : "") + " from change \(change) of the next step (modulo, as a cut's)"
                + (kind == .vanish ? " (the stick pulled, plugged in again after it: image \(image))" : "")
        }
    }

    /// The steps of the workload of `seed`: the logging, syncing, retention and repair steps
    /// (`baseWorkload`), with moves, syncs of the stick and trips (`extras`) put between them.
    public static func workload(seed: UInt64) -> [Step] {
        var steps = baseWorkload(seed: seed)
        var random = SeededRandom(seed: seed ^ 0x6D6F_7665_7472_6970)
        for extra in extras(using: &random) {
            // Never right after a cut: a base step keeps the cut planned for it.
            let places = steps.indices.filter { $0 == 0 || !steps[$0 - 1].isCut } + [steps.count]
            let place = places.randomElement(using: &random)!
            steps.insert(contentsOf: extra, at: place)
        }
        var faults = SeededRandom(seed: seed ^ 0x6661_756C_7473)
        insertFaults(into: &steps, using: &faults)
        var directories = SeededRandom(seed: seed ^ 0x6469_7266_7379_6E63)
        insertDirectoryFault(into: &steps, using: &directories)
        var configuration = SeededRandom(seed: seed ^ 0x7365_7474_696E_6773)
        insertConfigurationChanges(into: &steps, using: &configuration)
        var targeted = SeededRandom(seed: seed ^ 0x666C_6F6F_7273)
        insertFloorCuts(into: &steps, using: &targeted)
        return steps
    }

    /// Cuts where the floor can pass a cursor a crash takes back, each crash image tried
    /// (`cutAfterFloor`); one seed in four each, a stream of its own, put in last so that
    /// the other streams' steps stay as they were:
    /// - a destination lowered to the journal's start (`destination add --from-start`),
    ///   then synced paced beside the others (`pacedRun`): a floor raised to its progress
    ///   record, not durable, passes its cursor file once a cut drops the record;
    /// - a move whose pass fails the directory fsync after its last cursor's rename
    ///   (`nameSyncFails`), run again at once: the rerun finds every cursor passed in the
    ///   cache and raises the floor, which must not pass a name a cut can undo.
    static func insertFloorCuts(into steps: inout [Step], using random: inout SeededRandom) {
        var groups: [[Step]] = []
        if random.chance(0.25) {
            let paced = Int.random(in: 0..<Simulation.destinations.count, using: &random)
            let batches = Int.random(in: 2...4, using: &random)
            groups.append([.log(count: 40, pad: Int.random(in: 0...300, using: &random)), .lowerCursor(destination: paced),
                           .cutAfterFloor(write: Int.random(in: 1...2, using: &random), image: random.next()),
                           .pacedRun(paced: paced, batches: batches)])
        }
        if random.chance(0.25) {
            groups.append([.log(count: 30, pad: 250), .seal, .log(count: 1, pad: 1),
                           .fault(change: 1, kind: .nameSyncFails, count: 1, image: random.next()), .move(seal: false),
                           .cutAfterFloor(write: 1, image: random.next()), .move(seal: false)])
        }
        for group in groups {
            let places = steps.indices.filter { $0 == 0 || !steps[$0 - 1].isCut } + [steps.count]
            steps.insert(contentsOf: group, at: places.randomElement(using: &random)!)
        }
    }

    /// 1 to 5 settings or destination changes (`config set`, `destination add`, `remove`),
    /// two in five with a power cut inside. A stream of its own, so that the other steps
    /// stay as they were.
    static func insertConfigurationChanges(into steps: inout [Step], using random: inout SeededRandom) {
        for version in 1...Int.random(in: 1...5, using: &random) {
            let index = Int.random(in: 0..<Simulation.extraDestinations.count, using: &random)
            var group: [Step] = switch Int.random(in: 0..<100, using: &random) {
            case 0..<40: [.settings(version: version)]
            case 40..<75: [.destinationAdd(index: index)]
            default: [.destinationRemove(index: index)]
            }
            if random.chance(0.4) { group.insert(.cut(change: Int.random(in: 1...40, using: &random), image: random.next()), at: 0) }
            let places = steps.indices.filter { $0 == 0 || !steps[$0 - 1].isCut } + [steps.count]
            steps.insert(contentsOf: group, at: places.randomElement(using: &random)!)
        }
    }

    /// Directory fsyncs that fail: one seed in two, one anywhere (`dirFsyncFails`); and in
    /// three seeds in five, one before a move that fails the next directory fsync on the
    /// stick (`stickDirFsyncFails`), most often the one after a moved segment's rename (the
    /// segment then on the stick, its name not durable: the move must not end as if
    /// nothing had reached the target). A stream of its own, so that the other steps stay
    /// as they were.
    static func insertDirectoryFault(into steps: inout [Step], using random: inout SeededRandom) {
        let anywhere = random.chance(0.5)
        let beforeAMove = random.chance(0.6)
        for kind in [anywhere ? SimulatedDisk.Fault.Kind.dirFsyncFails : nil, beforeAMove ? .stickDirFsyncFails : nil].compactMap({ $0 }) {
            let places = steps.indices.filter { !steps[$0].isCut && ($0 == 0 || !steps[$0 - 1].isCut) }
            let moves = places.filter { if case .move = steps[$0] { true } else { false } }
            guard let place = (kind == .dirFsyncFails ? places : moves).randomElement(using: &random) else { continue }
            steps.insert(.fault(change: Int.random(in: 1...160, using: &random), kind: kind, count: 1, image: random.next()), at: place)
        }
    }

    /// 0 to 3 faults the process survives, each before a step that has no cut planned: a
    /// pulled stick before a move (two in five moves' faults), else EIO, ENOSPC (once, or
    /// twice in a row) or an fsync that drops its pages, at a change anywhere in the step.
    static func insertFaults(into steps: inout [Step], using random: inout SeededRandom) {
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            let places = steps.indices.filter { !steps[$0].isCut && ($0 == 0 || !steps[$0 - 1].isCut) }
            guard let place = places.randomElement(using: &random) else { return }
            let isMove = if case .move = steps[place] { true } else { false }
            let kind: SimulatedDisk.Fault.Kind = isMove && random.chance(0.4)
                ? .vanish : [.eio, .enospc, .fsyncDrops].randomElement(using: &random)!
            // Taken modulo the longest step of its kind so far (`Simulation.reach`).
            let change = Int.random(in: 1...160, using: &random)
            steps.insert(.fault(change: change, kind: kind, count: random.chance(0.3) ? 2 : 1, image: random.next()), at: place)
        }
    }

    /// The step's kind, for the lengths cuts are drawn over (`Simulation.reach`).
    var kind: String {
        switch self {
        case .log: "log"
        case .seal: "seal"
        case .timeIndex: "time index"
        case .sync: "sync"
        case .engine: "engine"
        case .engines: "engines"
        case .prune: "prune"
        case .lowerCursor: "lower cursor"
        case .repair: "repair"
        case .move: "move"
        case .stickEngine: "stick engine"
        case .tripStart: "trip start"
        case .tripStop: "trip stop"
        case .settings: "settings"
        case .destinationAdd: "destination add"
        case .destinationRemove: "destination remove"
        case .pacedRun: "paced run"
        case .cut, .cutAfterFloor: "cut"
        case .fault: "fault"
        }
    }

    var isCut: Bool {
        switch self {
        case .cut, .cutAfterFloor, .fault: true
        default: false
        }
    }

    /// 2 to 10 groups of steps to put into a base workload: moves (about a third of them
    /// with a power cut during the move), syncs of the stick, trips started and stopped
    /// (half the stops with a cut).
    static func extras(using random: inout SeededRandom) -> [[Step]] {
        var groups: [[Step]] = []
        for _ in 0..<Int.random(in: 2...10, using: &random) {
            var group: [Step]
            var cutChance = 0.35
            var longest = 40
            var cutPlace: Int?
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<35:
                group = [.move(seal: random.chance(0.3))]
                // A move makes up to about 160 changes: its cut may come anywhere in it.
                longest = 160
            case 35..<50:
                group = [.stickEngine(outcomes: (0..<Int.random(in: 1...3, using: &random)).map { _ in
                    Delivery.allCases.randomElement(using: &random)!
                })]
            case 50..<72: group = [.tripStart(mode: ["car", "walk", "bicycle"].randomElement(using: &random)!)]
            case 72..<82:
                // The active segment sealed and a new one begun, every destination drained,
                // then retention: segments really deleted.
                group = [.seal, .log(count: 1, pad: 1)]
                group += Simulation.destinations.indices.map {
                    .engine(destination: $0, batch: Simulation.maxBatch, outcomes: Array(repeating: .acknowledged, count: 12))
                }
                group.append(.prune)
                cutChance = 0.5
            case 82..<86: group = [.lowerCursor(destination: Int.random(in: 0..<Simulation.destinations.count, using: &random))]
            case 86..<93:
                let pair = Simulation.destinations.indices.shuffled(using: &random)
                group = [.engines(destination: pair[0], beside: pair[1], outcomes: (0..<Int.random(in: 1...4, using: &random)).map { _ in
                    random.chance(0.7) ? .acknowledged : Delivery.allCases.randomElement(using: &random)!
                })]
                cutChance = 0.6
            default:
                group = [.tripStop]
                cutChance = 0.5
                // Half the stops end a trip started just before, and run again after it (a
                // stop cut short finishes on its next run).
                if random.chance(0.5) {
                    group = [.tripStart(mode: "car"), .tripStop, .tripStop]
                    cutPlace = 1
                    // Always cut: a stop cut between its commit and the trip's clearing is
                    // what its second run must finish without writing the record again.
                    cutChance = 1
                }
            }
            // The cut falls into the group's last step (retention after the drains).
            if random.chance(cutChance) {
                group.insert(.cut(change: Int.random(in: 1...longest, using: &random), image: random.next()), at: cutPlace ?? group.count - 1)
            }
            groups.append(group)
        }
        return groups
    }

    /// The logging, syncing, retention and repair steps of `seed` (the workload before
    /// moves and trips joined it: its seeds' steps are unchanged).
    static func baseWorkload(seed: UInt64) -> [Step] {
        var random = SeededRandom(seed: seed)
        let count = Int.random(in: 20...60, using: &random)
        var steps: [Step] = []
        for _ in 0..<count {
            let roll = Int.random(in: 0..<100, using: &random)
            switch roll {
            case 0..<35:
                steps.append(.log(count: Int.random(in: 1...40, using: &random), pad: Int.random(in: 0...300, using: &random)))
            case 35..<40: steps.append(.seal)
            case 40..<44: steps.append(.timeIndex)
            case 44..<58:
                let outcomes = (0..<Int.random(in: 1...4, using: &random)).map { _ in Delivery.allCases.randomElement(using: &random)! }
                steps.append(.engine(destination: Int.random(in: 0..<Simulation.destinations.count, using: &random),
                                     batch: Simulation.maxBatch, outcomes: outcomes))
            case 58..<72:
                steps.append(.sync(destination: Int.random(in: 0..<Simulation.destinations.count, using: &random),
                                   batch: Int.random(in: 1...Simulation.maxBatch, using: &random),
                                   outcome: Delivery.allCases.randomElement(using: &random)!))
            case 72..<78: steps.append(.prune)
            case 78..<81: steps.append(.repair)
            default: steps.append(.cut(change: Int.random(in: 1...60, using: &random), image: random.next()))
            }
        }
        return steps
    }
}
