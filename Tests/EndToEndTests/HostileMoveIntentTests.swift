import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A hostile stick never locks the user's journal: `journal move` refuses a target whose
/// numbers would pass 2^53 before writing any intent, and an intent that cannot be read is
/// set aside by `--abort`.
@Suite("hostile move targets and intents")
struct HostileMoveIntentTests {
    @Test("a stick whose newest segment is numbered 2^53: move refuses before writing an intent; the journal stays usable")
    func moveOntoAHostileStick() throws {
        let sandbox = try MoveSandbox(prefix: "overland-hostile-move")
        try MoveRecords.makeSource(at: sandbox.source, cursor: 0)
        // The stick's journal as a first move made it; then its newest segment says 2^53.
        let first = try sandbox.move()
        first.expectExit(0)
        try HostileSequenceTests.writeSegment(journal: sandbox.target, first: HostileSequenceTests.limit, lines: [MoveRecords.line(9999)])
        let moved = try sandbox.move(["--seal"])
        moved.expectExit(65)
        #expect(moved.stderrLines.count == 1 && moved.stderrText.contains("2^53"), "\(moved.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.source + "/state/move.json"), "no intent written")
        // The user's journal is not locked: a dry run, an abort (nothing pending), a move elsewhere.
        var sync = ToolRunner(product: "overland-sync")
        sync.environment = MoveSandbox.environment(sandbox.directory)
        let dry = try sync.run(["--journal", sandbox.source, "--url", "http://127.0.0.1:9/", "--dry-run"])
        dry.expectExit(0)
        let elsewhere = try sandbox.move([], to: sandbox.directory.appending("other"))
        elsewhere.expectExit(0)
    }

    @Test("an unreadable move intent never locks the journal: --abort sets it aside, and sync works again",
          arguments: ["garbage {", #"{"version":1,"source_journal_id":"00","segments":[]}"#, "bignumbers"])
    func unreadableIntentIsSetAside(intent: String) throws {
        let sandbox = try MoveSandbox(prefix: "overland-hostile-intent")
        try MoveRecords.makeSource(at: sandbox.source, cursor: 0)
        let id = try Journal(path: sandbox.source).id.description
        let text = intent != "bignumbers" ? intent : """
            {"version":1,"source_journal_id":"\(id)","target_journal_id":"\(id)","target":"/nowhere",\
            "segments":[{"name":"00000000000000000000.jsonl.gz","from":0,"end":20,"records":20,"target_first":\(HostileSequenceTests.limit + 1)}]}
            """
        try FileManager.default.createDirectory(atPath: sandbox.source + "/state", withIntermediateDirectories: true)
        try HostileJournalTests.write(Array(text.utf8), to: sandbox.source + "/state/move.json")
        var sync = ToolRunner(product: "overland-sync")
        sync.environment = MoveSandbox.environment(sandbox.directory)
        let refused = try sync.run(["--journal", sandbox.source, "--url", "http://127.0.0.1:9/", "--dry-run"])
        #expect(refused.exitStatus != 0 && refused.stderrText.contains("--abort"), "\(refused)")
        let abort = try sandbox.overland(["journal", "move", "--journal", sandbox.source, "--abort"])
        abort.expectExit(0)
        #expect(abort.stdoutText.contains("set aside"), "\(abort.stdoutText)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.source + "/state/move.json"))
        let dry = try sync.run(["--journal", sandbox.source, "--url", "http://127.0.0.1:9/", "--dry-run"])
        dry.expectExit(0)
        let abortTargetLost = try sandbox.overland(["journal", "move", "--journal", sandbox.source, "--abort", "--target-lost"])
        #expect(abortTargetLost.exitStatus != 0 && abortTargetLost.stderrLines.count == 1, "nothing pending now: \(abortTargetLost)")
    }

    @Test("a readable intent whose target path holds another journal: --abort says why, --abort --target-lost always clears it")
    func intentWithAForeignTarget() throws {
        let sandbox = try MoveSandbox(prefix: "overland-hostile-target")
        try MoveRecords.makeSource(at: sandbox.source, cursor: 0)
        let source = try Journal(path: sandbox.source).id.description
        // The intent names one journal; the path holds another.
        _ = try Journal(path: sandbox.target, create: true, deviceID: "other")
        let named = "0123456789abcdef0123456789abcdef"
        let intent = #"{"version":1,"source_journal_id":"\#(source)","target_journal_id":"\#(named)","target":"\#(sandbox.target)","segments":[{"name":"00000000000000000000.jsonl.gz","from":0,"end":20,"records":20,"target_first":0}]}"#
        try FileManager.default.createDirectory(atPath: sandbox.source + "/state", withIntermediateDirectories: true)
        try HostileJournalTests.write(Array(intent.utf8), to: sandbox.source + "/state/move.json")
        let abort = try sandbox.overland(["journal", "move", "--journal", sandbox.source, "--abort"])
        #expect(abort.exitStatus != 0 && abort.exitStatus != nil && abort.stderrLines.count == 1, "\(abort)")
        let lost = try sandbox.overland(["journal", "move", "--journal", sandbox.source, "--abort", "--target-lost"])
        lost.expectExit(0)
        #expect(!FileManager.default.fileExists(atPath: sandbox.source + "/state/move.json"))
        var sync = ToolRunner(product: "overland-sync")
        sync.environment = MoveSandbox.environment(sandbox.directory)
        let dry = try sync.run(["--journal", sandbox.source, "--url", "http://127.0.0.1:9/", "--dry-run"])
        dry.expectExit(0)
        #expect(try Journal(path: sandbox.source).statistics().records == 125, "every record stayed")
    }
}
