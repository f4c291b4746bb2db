import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Oversized segments: memory stays bounded by design (segments are read a member at a
/// time), whatever a hostile stick holds. Peak RSS measured with GNU time.
@Suite("hostile segment sizes and memory")
struct HostileMemoryTests {
    static let hugeBytes = 255 << 20

    /// A journal of a few real epochs, then a 255 MiB newest segment: zeros after one valid
    /// member (a sparse file, so the disk is not filled), or `members` copies of a real member.
    static func hugeJournal() throws -> (LogSandbox, ToolRunner, String) {
        let sandbox = try LogSandbox()
        let input = Array((0..<20).map { HostileNumbersLogTests.epoch($0) }.joined().utf8)
        #expect(try sandbox.log(["--commit-interval", "0"], stdin: input).exitStatus == 0)
        #expect(try sandbox.overland.run(["journal", "seal", "--journal", sandbox.journal]).exitStatus == 0)
        let end = try Journal(path: sandbox.journal).endSequence()
        let line = MoveRecords.line(1)
        let payload = Array((line + "\n").utf8)
        let member = HostileJournalTests.member(
            firstSequence: end, count: 1, journalID: try HostileJournalTests.journalID(sandbox.journal),
            deflate: try HostileJournalTests.deflate(payload), crc: HostileJournalTests.crc32(payload), isize: UInt32(payload.count))
        let path = sandbox.journal + "/segments/" + String(format: "%020llu.jsonl.gz", end)
        try HostileJournalTests.write(member, to: path)
        #expect(truncate(path, off_t(hugeBytes)) == 0)
        var sync = ToolRunner(product: "overland-sync")
        sync.environment = sandbox.logger.environment
        return (sandbox, sync, path)
    }

    @Test("a 255 MiB segment: overland-sync, status, journal stats, verify and export stay within a bounded peak RSS")
    func oversizedSegment() throws {
        let (sandbox, sync, _) = try Self.hugeJournal()
        let server = try LocalServer()
        defer { server.stop() }
        let runs: [(String, ToolRunner, [String])] = [
            ("overland-sync", sync, ["--journal", sandbox.journal, "--url", server.url, "--now"]),
            ("status", sandbox.overland, ["status", "--journal", sandbox.journal]),
            ("journal stats", sandbox.overland, ["journal", "stats", "--journal", sandbox.journal]),
            ("journal verify", sandbox.overland, ["journal", "verify", "--journal", sandbox.journal]),
            ("export", sandbox.overland, ["export", "--format", "geojson", "--journal", sandbox.journal, "-o", sandbox.directory.appending("out.json")]),
        ]
        // What the same build needs for `--help`: the floor of a debug executable.
        let (_, floor) = try HostileMeasure.peakRSS(sandbox.overland, ["--help"])
        var figures: [String] = []
        for (name, tool, arguments) in runs {
            let (result, peak) = try HostileMeasure.peakRSS(tool, arguments)
            #expect(result.exitStatus != nil && result.signal == nil, "\(name): \(result)")
            #expect(peak > 0 && peak < floor + (24 << 20), "\(name): peak RSS \(peak >> 20) MiB, floor \(floor >> 20) MiB")
            figures.append("\(name) \(peak >> 20) MiB")
        }
        #expect(server.requests.count >= 1, "the sync sent the records before the huge segment, and its one record")
        print("peak RSS, 255 MiB segment (floor \(floor >> 20) MiB): " + figures.joined(separator: ", "))
        Figures.record("hostile input: a 255 MiB segment", "command runs within 24 MiB of the --help floor", runs.count)
    }

    @Test("a segment file is refused by its size before any of it is read (over 256 MiB)")
    func overTheLimitIsRefusedBySize() throws {
        let (sandbox, sync, path) = try Self.hugeJournal()
        #expect(truncate(path, off_t(300 << 20)) == 0)
        let (result, peak) = try HostileMeasure.peakRSS(sync, ["--journal", sandbox.journal, "--url", "http://127.0.0.1:9/", "--dry-run"])
        result.expectExit(65)
        let (stats, statsPeak) = try HostileMeasure.peakRSS(sandbox.overland, ["journal", "stats", "--journal", sandbox.journal])
        #expect(stats.exitStatus == 65 && stats.stderrText.contains("larger than"), "\(stats)")
        #expect(peak < 200 << 20 && statsPeak < 200 << 20, "\(peak >> 20) MiB, \(statsPeak >> 20) MiB")
    }
}
