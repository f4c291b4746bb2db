import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Memory bounded by the number of members as by bytes (issue 21): a valid segment of many
/// one-record members costs verify, stats, status, export and a sync batch what a small one
/// does (segments are walked a member at a time; no list of every member is kept).
@Suite("hostile member counts and memory")
struct HostileMemberCountTests {
    /// Members in the segment at OVERLAND_SOAK_SCALE=1 (the 3.7 M at 25). Before
    /// the fix, 150,000 cost 20 to 53 MiB above the floor: every bound below is exceeded.
    static let membersPerScale = 150_000

    /// A journal of a few real epochs, then an active segment of `count` valid one-record
    /// members: a real point first, then `{}` records (67 bytes a member, as in the issue).
    static func manyMemberJournal(count: Int) throws -> (LogSandbox, ToolRunner, point: String) {
        let sandbox = try LogSandbox()
        let input = Array((0..<20).map { HostileNumbersLogTests.epoch($0) }.joined().utf8)
        #expect(try sandbox.log(["--commit-interval", "0"], stdin: input).exitStatus == 0)
        #expect(try sandbox.overland.run(["journal", "seal", "--journal", sandbox.journal]).exitStatus == 0)
        let end = try Journal(path: sandbox.journal).endSequence()
        let journalID = try HostileJournalTests.journalID(sandbox.journal)
        func member(_ line: String, _ sequence: UInt64) throws -> [UInt8] {
            let payload = Array((line + "\n").utf8)
            return HostileJournalTests.member(
                firstSequence: sequence, count: 1, journalID: journalID,
                deflate: try HostileJournalTests.deflate(payload), crc: HostileJournalTests.crc32(payload), isize: UInt32(payload.count))
        }
        let point = MoveRecords.line(1)
        var bytes = try member(point, end)
        // The same `{}` member with each sequence number patched in (and its header CRC).
        let empty = try member("{}", 0)
        let headerSize = 54
        bytes.reserveCapacity(bytes.count + (count - 1) * empty.count)
        for index in 1..<count {
            var next = empty
            withUnsafeBytes(of: (end + UInt64(index)).littleEndian) { next.replaceSubrange(24..<32, with: $0) }
            let crc = HostileJournalTests.crc32(next[0..<(headerSize - 2)])
            withUnsafeBytes(of: UInt16(truncatingIfNeeded: crc).littleEndian) { next.replaceSubrange((headerSize - 2)..<headerSize, with: $0) }
            bytes += next
        }
        try HostileJournalTests.write(bytes, to: sandbox.journal + "/segments/" + String(format: "%020llu.jsonl.gz", end))
        var sync = ToolRunner(product: "overland-sync")
        sync.environment = sandbox.logger.environment
        return (sandbox, sync, point)
    }

    @Test("a valid segment of many one-record members: verify, stats, status, export and a sync batch stay within a bounded peak RSS")
    func manyMembers() throws {
        let scale = ProcessInfo.processInfo.environment["OVERLAND_SOAK_SCALE"].flatMap(Int.init).map { max($0, 1) } ?? 1
        let count = Self.membersPerScale * scale
        let (sandbox, sync, _) = try Self.manyMemberJournal(count: count)
        // The server is busy: the sync sends one batch, keeps its records and exits 75.
        let server = try LocalServer { _, _ in LocalServer.text(503, "busy") }
        defer { server.stop() }

        let records = try Journal(path: sandbox.journal).endSequence()
        let (verify, verifyPeak) = try HostileMeasure.peakRSS(sandbox.overland, ["journal", "verify", "--journal", sandbox.journal])
        #expect(verify.exitStatus == 0 && verify.stdoutText.contains("\(records) intact records"), "\(verify)")
        let (syncResult, syncPeak) = try HostileMeasure.peakRSS(sync, ["--journal", sandbox.journal, "--url", server.url, "--now"])
        #expect(syncResult.exitStatus == 75 && server.requests.count == 1, "\(syncResult), \(server.requests.count) requests")
        let (status, statusPeak) = try HostileMeasure.peakRSS(sandbox.overland, ["status", "--journal", sandbox.journal])
        status.expectExit(0)
        let (stats, statsPeak) = try HostileMeasure.peakRSS(sandbox.overland, ["journal", "stats", "--journal", sandbox.journal])
        stats.expectExit(0)
        let output = sandbox.directory.appending("out.json")
        let (export, exportPeak) = try HostileMeasure.peakRSS(sandbox.overland, ["export", "--format", "geojson", "--journal", sandbox.journal, "-o", output])
        export.expectExit(0)

        // What the same build needs for `--help`: the floor of a debug executable. Before
        // the fix, the lists of every member cost 130 to 360 bytes a member above it. The
        // readers need a 1 MiB window and a member (12 MiB allowed); the sync its batch too.
        let (_, floor) = try HostileMeasure.peakRSS(sandbox.overland, ["--help"])
        let figures = [("journal verify", verifyPeak, 12), ("overland-sync batch", syncPeak, 24), ("status", statusPeak, 12),
                       ("journal stats", statsPeak, 12), ("export", exportPeak, 12)]
        for (name, peak, allowed) in figures {
            #expect(peak > 0 && peak < floor + (allowed << 20),
                    "\(name): peak RSS \(peak >> 20) MiB, floor \(floor >> 20) MiB, \(allowed) MiB allowed, \(count) members")
        }
        print("peak RSS, \(count) one-record members (floor \(floor >> 20) MiB): "
              + figures.map { "\($0.0) \($0.1 >> 20) MiB" }.joined(separator: ", "))
        Figures.record("hostile input: a segment of \(count) one-record members", "command runs within 12 MiB (the sync 24) of the --help floor", figures.count)
    }

    @Test("the newest point is found behind 2,000 newer members that hold none (the older members read forward, bounded)")
    func newestPointBehindManyMembers() throws {
        let (sandbox, _, _) = try Self.manyMemberJournal(count: 2_000)
        let journal = try Journal(path: sandbox.journal)
        let newest = try #require(try journal.lastRecord(where: { $0.first == UInt8(ascii: "{") && $0.count > 2 }))
        #expect(newest.sequence == (try journal.endSequence()) - 2_000)
        #expect(String(decoding: newest.line, as: UTF8.self) == MoveRecords.line(1))
        let last = try #require(try journal.lastRecord())
        #expect(last.sequence == (try journal.endSequence()) - 1 && String(decoding: last.line, as: UTF8.self) == "{}")
    }
}
