import TestSupport
import Foundation
import OverlandJournal
import Testing

/// Who reads a journal and where it ends, through the real commands (issues 32 and 33): a
/// destination that is not configured holds nothing back; a point is unsent while some
/// configured destination has not had it acknowledged, at home and on a stick; a move
/// carries each destination's place with the records; the journal's end is the larger of
/// the newest segment's end and the highest cursor, everywhere.
@Suite struct JournalReadersAndEndTests {
    /// The `journal stats --json` object.
    static func stats(_ sandbox: ReliabilitySandbox, _ journal: String) throws -> [String: Any] {
        let result = try sandbox.overland.run(["journal", "stats", "--json", "--journal", journal])
        #expect(result.succeeded, "\(result)")
        return try #require(try JSONScan.object(result.stdout))
    }

    static func cursorNext(_ file: String) throws -> Int? {
        guard let data = FileManager.default.contents(atPath: file) else { return nil }
        return try JSONScan.object(data)?["next"] as? Int
    }

    /// Named destinations only (no endpoint): `destination add` leaves no default cursor;
    /// a default cursor at 0 left by an older `add` holds nothing back: retention runs,
    /// stats counts the points sent, and `destination remove default` deletes it.
    @Test func retentionRunsWithNamedDestinationsOnly() throws {
        let server = try LocalServer()
        defer { server.stop() }
        let sandbox = try ReliabilitySandbox(prefix: "overland-named-only")
        try sandbox.writeSettings(#"{"retention_days": 0}"#)
        try sandbox.logEpochs(0..<40)
        #expect(try sandbox.overland.run(["journal", "seal", "--journal", sandbox.journal]).succeeded)
        try sandbox.logEpochs(40..<50)
        let added = try sandbox.overland.run(["destination", "add", "home", server.url, "--from-start", "--journal", sandbox.journal])
        #expect(added.succeeded, "\(added)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.journal + "/cursors/default.json"),
                "no endpoint: no default destination, no cursor of it")
        // What overland before this fix left: the default cursor at 0.
        let journal = try Journal(path: sandbox.journal)
        try Data("{\"journal_id\":\"\(journal.id)\",\"next\":0,\"name\":\"default\"}\n".utf8)
            .write(to: URL(fileURLWithPath: sandbox.journal + "/cursors/default.json"))
        #expect(try Journal(path: sandbox.journal).segments().count == 2)

        let sync = try sandbox.sync.run(["--journal", sandbox.journal, "--now"])
        #expect(sync.succeeded, "\(sync)")
        #expect(try Journal(path: sandbox.journal).segments().count == 1, "the sealed segment every destination has is deleted")
        let stats = try Self.stats(sandbox, sandbox.journal)
        #expect(stats["unsent"] as? Int == 0 && stats["sent"] as? Int == 10, "\(stats)")
        #expect((stats["readers"] as? [String: Any])?["default"] == nil, "\(stats)")

        let removed = try sandbox.overland.run(["destination", "remove", "default", "--journal", sandbox.journal])
        removed.expectExit(0)
        #expect(!FileManager.default.fileExists(atPath: sandbox.journal + "/cursors/default.json"))
        #expect(try Self.cursorNext(sandbox.journal + "/cursor.json") == 50)
        // With an endpoint set, 'default' is the settings' destination: still refused.
        try sandbox.writeSettings(#"{"endpoint": "\#(server.url)"}"#)
        let refused = try sandbox.overland.run(["destination", "remove", "default", "--journal", sandbox.journal])
        refused.expectExit(64)
    }

    /// A stick synced to one receiver that acknowledged and one that failed still holds
    /// every point for the failing one: stats, stats --json and export --unsent say so.
    @Test func aStickHoldingPointsForAFailingDestinationIsNotDone() throws {
        let good = try LocalServer()
        defer { good.stop() }
        let failing = try LocalServer { _, _ in LocalServer.text(500, "down") }
        defer { failing.stop() }
        let sandbox = try ReliabilitySandbox(prefix: "overland-stick-unsent")
        try sandbox.writeSettings(#"{"endpoint": "\#(good.url)"}"#)
        try sandbox.logEpochs(0..<25)
        #expect(try sandbox.overland.run(["destination", "add", "err", failing.url, "--from-start", "--journal", sandbox.journal]).succeeded)
        let stick = sandbox.directory.appending("stick/overland")
        let moved = try sandbox.overland.run(["journal", "move", "--journal", sandbox.journal, "--seal", "--to", stick])
        #expect(moved.succeeded, "\(moved)")
        let sync = try sandbox.sync.run(["--journal", stick, "--now"])
        sync.expectExit(75)
        #expect(good.requests.count == 1)

        let text = try sandbox.overland.run(["journal", "stats", "--journal", stick])
        #expect(text.stdoutLines.contains("records   25 (25 location points): 0 sent, 25 unsent"), "\(text.stdoutText)")
        #expect(text.stdoutLines.contains("  err: 0 sent, 25 unsent (cursor 0)"), "\(text.stdoutText)")
        let stats = try Self.stats(sandbox, stick)
        #expect(stats["unsent"] as? Int == 25 && stats["sent"] as? Int == 0, "\(stats)")
        let export = try sandbox.overland.run(["export", "--format", "csv", "--unsent", "--journal", stick])
        let all = try sandbox.overland.run(["export", "--format", "csv", "--journal", stick])
        #expect(export.succeeded && all.succeeded, "\(export)")
        // CSV lines end in CR LF: the points are counted by their device column.
        #expect(all.stdoutText.components(separatedBy: ",reliability,").count == 26 && export.stdoutText == all.stdoutText,
                "every point is unsent: \(export.stdoutText)")
    }

    /// A move carries each destination's place: the stick's upload to the same receivers
    /// sends nothing they acknowledged, and the rest to the one that had not.
    @Test func aMoveCarriesEachDestinationsPlace() throws {
        let good = try LocalServer()
        defer { good.stop() }
        let flaky = try LocalServer { index, _ in index == 0 ? LocalServer.text(500, "down") : LocalServer.ok() }
        defer { flaky.stop() }
        let sandbox = try ReliabilitySandbox(prefix: "overland-move-places")
        try sandbox.writeSettings(#"{"endpoint": "\#(good.url)"}"#)
        try sandbox.logEpochs(0..<25)
        #expect(try sandbox.overland.run(["destination", "add", "err", flaky.url, "--from-start", "--journal", sandbox.journal]).succeeded)
        let home = try sandbox.sync.run(["--journal", sandbox.journal, "--now"])
        home.expectExit(75)
        #expect(good.requests.count == 1 && flaky.requests.count == 1)

        let stick = sandbox.directory.appending("stick/overland")
        let moved = try sandbox.overland.run(["journal", "move", "--journal", sandbox.journal, "--seal", "--to", stick])
        #expect(moved.succeeded, "\(moved)")
        #expect(moved.stdoutLines.contains { $0.hasPrefix("default had acknowledged 25 of the moved records: its place went with them") },
                "\(moved.stdoutText)")

        let upload = try sandbox.sync.run(["--journal", stick, "--now"])
        #expect(upload.succeeded, "\(upload)")
        #expect(good.requests.count == 1, "the receiver that had them gets none again: \(good.requests.count - 1) more requests")
        let sent = flaky.requests.dropFirst().flatMap { request -> [Any] in
            ((try? JSONScan.object(request.body))??["locations"] as? [Any]) ?? []
        }
        #expect(sent.count == 25, "the one that had not gets them all")
        let stats = try Self.stats(sandbox, stick)
        #expect(stats["unsent"] as? Int == 0, "\(stats)")
    }

    /// A move that took every segment: the journal's end stays where the records ended.
    /// The same capture logged again adds nothing (the time index is not "rebuilt"), a new
    /// destination starts there without lowering any cursor, and new points continue the
    /// numbering.
    @Test func theJournalsEndAfterAMoveThatTookEverySegment() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-end-after-move")
        try sandbox.logEpochs(0..<21)
        let stick = sandbox.directory.appending("stick/overland")
        let moved = try sandbox.overland.run(["journal", "move", "--journal", sandbox.journal, "--seal", "--to", stick])
        #expect(moved.succeeded, "\(moved)")
        #expect(try Journal(path: sandbox.journal).segments().isEmpty)
        #expect(try Self.cursorNext(sandbox.journal + "/cursor.json") == 21)

        let again = try sandbox.logEpochs(0..<21, extra: ["--stats"])
        #expect(again.stderrText.contains("21 already in the journal"), "\(again.stderrText)")
        #expect(!again.stderrText.contains("state/times"), "\(again.stderrText)")
        #expect(try Journal(path: sandbox.journal).segments().isEmpty)

        let added = try sandbox.overland.run(["destination", "add", "later", "http://127.0.0.1:9/in", "--journal", sandbox.journal])
        #expect(added.succeeded, "\(added)")
        #expect(added.stdoutText.contains("starts at the journal's end (record 21)"), "\(added.stdoutText)")
        #expect(try Self.cursorNext(sandbox.journal + "/cursor.json") == 21)
        #expect(try Self.cursorNext(sandbox.journal + "/cursors/later.json") == 21)

        try sandbox.logEpochs(21..<30)
        let records = try sandbox.records().records
        #expect(records.map(\.sequence) == Array(UInt64(21)..<30), "\(records.map(\.sequence))")
    }

    /// A forged time index claiming a device's seconds beyond its records (998 points of
    /// `bike`, 2 of `vm`; the index gives `vm` 1,000 seconds) is rebuilt: the capture is
    /// logged.
    @Test func aForgedTimeIndexDoesNotHideRealFixes() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-forged-times")
        let bike = try sandbox.file("bike.nmea", SyntheticDrive.text(0..<998))
        #expect(try sandbox.log.run(["--journal", sandbox.journal, "--device-id", "bike", bike]).succeeded)
        let vm = try sandbox.file("vm.nmea", SyntheticDrive.text(0..<1) + SyntheticDrive.text(5000..<5001))
        #expect(try sandbox.log.run(["--journal", sandbox.journal, "--device-id", "vm", vm]).succeeded)
        let t0 = SyntheticDrive.time(0)
        try "overland-times 2 through 1000\ndevice \"vm\"\n\(t0) 1 1000\n"
            .write(toFile: sandbox.journal + "/state/times", atomically: false, encoding: .utf8)
        let capture = try sandbox.file("vm-all.nmea", SyntheticDrive.text(0..<1000))
        let result = try sandbox.log.run(["--journal", sandbox.journal, "--device-id", "vm", "--stats", capture])
        #expect(result.succeeded, "\(result)")
        #expect(result.stderrText.contains("1 already in the journal"), "\(result.stderrText)")
        #expect(result.stderrLines.filter { $0.contains("state/times") && $0.contains("rebuilt") }.count == 1, "\(result.stderrText)")
        #expect(try sandbox.records().records.count == 1999)
    }

    /// A directory at `state/times` is set aside and the index rebuilt; the logger logs.
    @Test func aDirectoryAtTheTimeIndexIsSetAside() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-times-directory")
        try sandbox.logEpochs(0..<10)
        let index = sandbox.journal + "/state/times"
        try FileManager.default.removeItem(atPath: index)
        try FileManager.default.createDirectory(atPath: index + "/inside", withIntermediateDirectories: true)
        let result = try sandbox.logEpochs(0..<20, extra: ["--stats"])
        result.expectExit(0)
        #expect(result.stderrText.contains("10 already in the journal"), "\(result.stderrText)")
        #expect(result.stderrLines.filter { $0.contains("state/times") && $0.contains("set aside") }.count == 1, "\(result.stderrText)")
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: index, isDirectory: &isDirectory) && !isDirectory.boolValue)
        let aside = try FileManager.default.contentsOfDirectory(atPath: sandbox.journal + "/damaged")
        #expect(aside.contains { $0.hasPrefix("times.not-a-file-") }, "\(aside)")
        #expect(try sandbox.records().records.count == 20)
        let again = try sandbox.logEpochs(0..<20, extra: ["--stats"])
        #expect(again.stderrText.contains("20 already in the journal") && !again.stderrText.contains("state/times"), "\(again.stderrText)")
    }
}
