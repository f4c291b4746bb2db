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
    /// Retention: sealed segments every destination acknowledged are deleted.
    case prune
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
    /// The power goes off at the `change`-th change of the next step (or after it when it
    /// makes fewer); `image` seeds the choice of crash state.
    case cut(change: Int, image: UInt64)

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
        case .prune: "remove sent segments"
        case .repair: "journal repair"
        case .move(let seal): "journal move to the stick" + (seal ? " (--seal, the logger stopped)" : "")
        case .stickEngine(let outcomes):
            "sync engine run of the stick's journal to stick, batches of \(Simulation.maxBatch): \(outcomes.map(\.rawValue).joined(separator: ", ")), then reset"
        case .tripStart(let mode): "trip start (\(mode))"
        case .tripStop: "trip stop (automatic)"
        case .cut(let change, let image): "power cut at change \(change) of the next step (image \(image))"
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
        return steps
    }

    var isCut: Bool {
        if case .cut = self { return true }
        return false
    }

    /// 2 to 10 groups of steps to put into a base workload: moves (about a third of them
    /// with a power cut during the move), syncs of the stick, trips started and stopped
    /// (half the stops with a cut).
    static func extras(using random: inout SeededRandom) -> [[Step]] {
        var groups: [[Step]] = []
        for _ in 0..<Int.random(in: 2...10, using: &random) {
            var group: [Step]
            var cutChance = 0.35
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<35: group = [.move(seal: random.chance(0.3))]
            case 35..<50:
                group = [.stickEngine(outcomes: (0..<Int.random(in: 1...3, using: &random)).map { _ in
                    Delivery.allCases.randomElement(using: &random)!
                })]
            case 50..<72: group = [.tripStart(mode: ["car", "walk", "bicycle"].randomElement(using: &random)!)]
            default:
                group = [.tripStop]
                cutChance = 0.5
            }
            if random.chance(cutChance) { group.insert(.cut(change: Int.random(in: 1...30, using: &random), image: random.next()), at: 0) }
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
            default: steps.append(.cut(change: Int.random(in: 1...40, using: &random), image: random.next()))
            }
        }
        return steps
    }
}
