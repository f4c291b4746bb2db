import Testing

/// `journal-sim`, the seeded explorer of power cuts, as a user runs it: clean seeds pass,
/// a disk that drops fsyncs or directory fsyncs is caught with a trace, a seed replays
/// exactly, bad options are usage errors (docs/reliability.md, "Power cuts, simulated").
@Suite struct PowerCutSimulationTests {
    static let sim = ToolRunner(product: "journal-sim")

    /// Under a minute of CI: every invariant holds over these seeds (150 since issue 36
    /// made each seed do more: faults it survives, cuts over whole steps, retention), and
    /// the faults were survived.
    @Test func cleanSeedsHoldEveryInvariant() throws {
        let result = try Self.sim.run(["--seeds", "150", "--first", "1000"])
        #expect(result.termination == .exited(0), "\(result)")
        let line = try #require(result.stdoutLines.last)
        #expect(line.hasPrefix("150 seeds, ") && line.contains("crash states checked, every invariant held"), "\(line)")
        #expect(!line.contains(" 0 faults survived"), "\(line)")
    }

    /// A disk that acknowledges fsyncs (of files, or of directories) and drops them is
    /// caught within 200 seeds, with the seed, the broken invariant, a shrunk trace and
    /// the command that replays it; the replay fails the same way.
    @Test(arguments: ["fsync", "dir-fsync"])
    func lyingDiskIsCaught(_ lie: String) throws {
        let result = try Self.sim.run(["--seeds", "200", "--disk-ignores", lie])
        #expect(result.termination == .exited(1), "\(result)")
        let lines = result.stdoutLines
        let first = try #require(lines.first)
        #expect(first.hasPrefix("seed ") && first.contains(" failed after step "), "\(result)")
        #expect(lines.contains { $0.hasPrefix("minimal trace (") }, "\(result)")
        let replay = try #require(lines.last)
        #expect(replay.hasPrefix("replay: journal-sim --seeds 1 --first ") && replay.hasSuffix("--disk-ignores \(lie)"), "\(replay)")
        let again = try Self.sim.run(replay.dropFirst("replay: journal-sim ".count).split(separator: " ").map(String.init))
        #expect(again.termination == .exited(1))
        #expect(again.stdoutLines == lines, "the same seed replays exactly")
    }

    @Test func badOptionsAreUsageErrors() throws {
        for arguments in [[], ["--seeds", "0"], ["--seeds", "x"], ["--seeds", "1", "--disk-ignores", "writes"], ["--frob", "1"]] {
            let result = try Self.sim.run(arguments)
            #expect(result.termination == .exited(64), "\(arguments): \(result)")
            #expect(result.stderrText.hasPrefix("journal-sim: "), "\(arguments): \(result)")
        }
    }
}
