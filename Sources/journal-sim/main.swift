// journal-sim: the seeded explorer of power cuts (issue 26, docs/reliability.md). Each
// seed runs a workload on a simulated disk, cuts the power at random changes and injects
// faults the process survives (issue 36), recovers with the real code and checks the
// invariants. Not installed; measured by scripts/mutate.
//
//   journal-sim --seeds N [--first S] [--disk-ignores dir-fsync|fsync]
//
// Exit 0: every invariant held (prints the crash states checked); 1: a seed failed
// (prints it, its violation and a shrunk trace; the same seed replays exactly); 64: usage.
#if canImport(Glibc)
import Glibc
#endif
import OverlandSimulation

func emit(_ text: String, to fd: Int32) {
    var text = text + "\n"
    text.withUTF8 { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if written <= 0 { return }
            offset += written
        }
    }
}

func usage(_ problem: String) -> Never {
    emit("journal-sim: \(problem)\nusage: journal-sim --seeds N [--first S] [--disk-ignores dir-fsync|fsync]", to: 2)
    exit(64)
}

var seeds: UInt64?
var first: UInt64 = 1
var ignores = SimulatedDisk.Ignores.nothing
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let option = arguments.removeFirst()
    guard !arguments.isEmpty else { usage("\(option) needs a value") }
    let value = arguments.removeFirst()
    switch option {
    case "--seeds":
        guard let count = UInt64(value), count > 0 else { usage("--seeds '\(value)': a whole number of 1 or more") }
        seeds = count
    case "--first":
        guard let start = UInt64(value) else { usage("--first '\(value)': a whole number") }
        first = start
    case "--disk-ignores":
        guard let lie = SimulatedDisk.Ignores(rawValue: value), lie != .nothing else {
            usage("--disk-ignores '\(value)': dir-fsync or fsync")
        }
        ignores = lie
    default:
        usage("unknown option '\(option)'")
    }
}
guard let seeds else { usage("--seeds is required") }

let explorer = Explorer(ignores: ignores)
var crashStates = 0
var coverage = Coverage()
var clock = timespec()
clock_gettime(CLOCK_MONOTONIC, &clock)
let started = Double(clock.tv_sec) + Double(clock.tv_nsec) / 1e9
for seed in first..<(first &+ seeds) {
    let outcome = await explorer.run(seed: seed)
    crashStates += outcome.crashStates
    coverage = coverage + outcome.coverage
    guard let violation = outcome.violation else { continue }
    emit("seed \(seed) failed \(violation)", to: 1)
    let (steps, shrunk) = await explorer.shrink(outcome.steps, stickOnFAT: outcome.stickOnFAT) ?? (outcome.steps, violation)
    emit("minimal trace (\(steps.count) of \(outcome.steps.count) steps), ending \(shrunk):", to: 1)
    emit("  setup: create \(Simulation.journalPath), place the cursors of \(Simulation.destinations.joined(separator: ", ")) at 0, make /stick (the stick's mount point"
         + (outcome.stickOnFAT ? ", FAT's model)" : ")"), to: 1)
    for (index, step) in steps.enumerated() { emit("  \(index): \(step)", to: 1) }
    emit("  end: power cut, recovery, the invariants checked", to: 1)
    emit("replay: journal-sim --seeds 1 --first \(seed)" + (ignores == .nothing ? "" : " --disk-ignores \(ignores.rawValue)"), to: 1)
    exit(1)
}
clock_gettime(CLOCK_MONOTONIC, &clock)
let seconds = Double(clock.tv_sec) + Double(clock.tv_nsec) / 1e9 - started
emit("\(seeds) seeds, \(crashStates) crash states checked, every invariant held (\(Int(Double(crashStates) / max(seconds, 0.001))) states/s; "
     + "\(coverage.movedRecords) records moved to the stick, \(coverage.stickReceived) delivered from it, "
     + "\(coverage.tripRecords) trip records, \(coverage.cutsInMoves) cuts inside a move, \(coverage.cutsInTripStops) inside a trip stop, "
     + "\(coverage.tripsWrittenAgain) trip records written again, \(coverage.faults) faults survived, \(coverage.segmentsRemoved) segments removed by retention)", to: 1)
