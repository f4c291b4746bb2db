import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Sequence numbers at 2^53 through the real commands: a record numbered N needs a cursor
/// of N + 1, so records end below 2^53; the logger refuses to go past, the sync never
/// writes a cursor its readers refuse, and a hostile stick never locks the user's journal.
@Suite("hostile sequence numbers and move intents")
struct HostileSequenceTests {
    static let limit: UInt64 = 1 << 53

    /// A segment named `first` holding `lines` in one member, built by the spec.
    static func writeSegment(journal: String, first: UInt64, lines: [String]) throws {
        let payload = Array(lines.map { $0 + "\n" }.joined().utf8)
        let member = HostileJournalTests.member(
            firstSequence: first, count: UInt32(lines.count), journalID: try HostileJournalTests.journalID(journal),
            deflate: try HostileJournalTests.deflate(payload), crc: HostileJournalTests.crc32(payload), isize: UInt32(payload.count))
        let name = String(format: "%020llu.jsonl.gz", first)
        try HostileJournalTests.write(member, to: journal + "/segments/" + name)
    }

    static func writeCursor(journal: String, next: UInt64) throws {
        let id = try Journal(path: journal).id.description
        try HostileJournalTests.write(Array(#"{"journal_id":"\#(id)","next":\#(next)}"#.utf8) + [10], to: journal + "/cursor.json")
    }

    static func epochs(_ range: Range<Int>) -> [UInt8] {
        Array(range.map { HostileNumbersLogTests.epoch($0) }.joined().utf8)
    }

    @Test("the logger refuses to number records past 2^53 - 1 with one clear line (exit 65), never reports them logged")
    func loggerStopsAtTheLimit() throws {
        let sandbox = try LogSandbox()
        #expect(try sandbox.log([], stdin: Self.epochs(0..<1)).exitStatus == 0)
        // 31 points where only 10 numbers are left.
        try Self.writeCursor(journal: sandbox.journal, next: Self.limit - 10)
        let full = try sandbox.log(["--commit-interval", "3600"], stdin: Self.epochs(1..<32))
        full.expectExit(65)
        #expect(full.stderrLines.count == 1 && full.stderrText.contains("is full") && full.stderrText.contains("2^53"),
                "\(full.stderrText)")
        #expect(!full.stderrText.contains("points logged"))
        // Nothing numbered past the limit was written; what is there reads back.
        let stats = try sandbox.overlandJournal("journal", "stats", "--json")
        stats.expectExit(0)
        #expect(try sandbox.overlandJournal("journal", "verify").exitStatus == 0)
        // At the limit itself the logger says so at once.
        try Self.writeCursor(journal: sandbox.journal, next: Self.limit)
        let atLimit = try sandbox.log([], stdin: Self.epochs(40..<41))
        #expect(atLimit.exitStatus == 65 && atLimit.stderrLines.count == 1 && atLimit.stderrText.contains("is full"), "\(atLimit)")
    }

    @Test("records up to 2^53 - 1 are synced, and the cursor written (2^53) is one every command reads")
    func syncReachesTheLimitCursor() throws {
        let sandbox = try LogSandbox()
        #expect(try sandbox.log([], stdin: Self.epochs(0..<1)).exitStatus == 0)
        try Self.writeCursor(journal: sandbox.journal, next: Self.limit - 5)
        let logged = try sandbox.log(["--commit-interval", "0"], stdin: Self.epochs(1..<6))
        logged.expectExit(0)
        let server = try LocalServer { _, _ in LocalServer.text(200, #"{"result":"ok"}"#) }
        defer { server.stop() }
        var sync = ToolRunner(product: "overland-sync")
        sync.environment = sandbox.logger.environment
        let result = try sync.run(["--journal", sandbox.journal, "--url", server.url, "--now"])
        result.expectExit(0)
        let cursor = try String(contentsOfFile: sandbox.journal + "/cursor.json", encoding: .utf8)
        #expect(cursor.contains("\"next\":\(Self.limit)"), "\(cursor)")
        for arguments in [["status"], ["journal", "stats"], ["journal", "verify"]] {
            let run = try sandbox.overland.run(arguments + ["--journal", sandbox.journal])
            #expect(run.exitStatus == 0, "\(arguments): \(run)")
        }
        #expect(try sync.run(["--journal", sandbox.journal, "--url", server.url, "--now"]).exitStatus == 0)
        #expect(try sync.run(["--journal", sandbox.journal, "--url", server.url, "--dry-run"]).exitStatus == 0)
    }
}
