import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `overland destination add|set|list|show|remove`, run as a user would, against a real
/// journal: round trips, the cursor each writes, and every refusal.
@Suite struct DestinationCommandTests {
    /// A sandbox with 30 points logged and a default endpoint.
    static func prepare() throws -> ReliabilitySandbox {
        let sandbox = try ReliabilitySandbox(prefix: "overland-destination")
        try sandbox.logEpochs(0..<30)
        try sandbox.writeSettings(#"{"endpoint": "http://127.0.0.1:9/overland"}"#)
        return sandbox
    }

    static func destination(_ sandbox: ReliabilitySandbox, _ arguments: [String], stdin: String? = nil) throws -> ToolResult {
        let full = ["destination"] + arguments + (["add", "remove"].contains(arguments.first ?? "") ? ["--journal", sandbox.journal] : [])
        if let stdin { return try sandbox.overland.run(full, stdinText: stdin) }
        return try sandbox.overland.run(full)
    }

    var destinationsPath: (ReliabilitySandbox) -> String { { $0.directory.appending("config/overland/destinations.json") } }

    static func cursor(_ sandbox: ReliabilitySandbox, _ name: String) throws -> UInt64 {
        try Journal(path: sandbox.journal).cursor(for: try #require(CursorName(name)))
    }

    @Test func addSetListShowRemoveRoundTrip() throws {
        let sandbox = try Self.prepare()
        let token = "destination-token-93b1f"
        let added = try Self.destination(sandbox, ["add", "traccar", "http://127.0.0.1:5055/?id=1", "--protocol", "traccar",
                                                   "--token-stdin"], stdin: token + "\n")
        #expect(added.succeeded, "\(added)")
        #expect(added.stdoutText.contains("added traccar: traccar to http://127.0.0.1:5055/"), "\(added.stdoutText)")
        #expect(added.stdoutText.contains("starts at the journal's end (record 30)"), "\(added.stdoutText)")
        #expect(try Self.cursor(sandbox, "traccar") == 30)
        #expect(try Self.cursor(sandbox, "default") == 0, "the default destination's cursor is untouched")

        let path = destinationsPath(sandbox)
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let file = try String(contentsOfFile: path, encoding: .utf8)
        #expect(file.contains("\"protocol\": \"traccar\"") && file.contains(token))

        let set = try Self.destination(sandbox, ["set", "traccar", "device_id", "van-42"])
        #expect(set.succeeded && set.stdoutText == "traccar.device_id: (none) -> van-42\n", "\(set)")
        let setToken = try Self.destination(sandbox, ["set", "traccar", "token", "--stdin"], stdin: "other-secret-token\n")
        #expect(setToken.succeeded && setToken.stdoutText == "traccar.token: set -> set\n", "\(setToken)")

        let list = try Self.destination(sandbox, ["list"])
        #expect(list.succeeded, "\(list)")
        #expect(list.stdoutLines.count == 2)
        #expect(list.stdoutLines.first?.hasPrefix("default") == true && list.stdoutLines.last?.hasPrefix("traccar") == true)
        #expect(!list.stdoutText.contains("id=1"), "urls are shown without their query")
        let json = try Self.destination(sandbox, ["list", "--json"])
        let array = try #require((try? JSONScan.value(json.stdout)) as? [[String: Any]])
        #expect(array.map { $0["name"] as? String } == ["default", "traccar"])
        let traccar = try #require(array.last)
        #expect(traccar["token"] as? Bool == true && traccar["device_id"] as? String == "van-42" && traccar["batch_size"] == nil)

        let show = try Self.destination(sandbox, ["show", "traccar"])
        #expect(show.succeeded, "\(show)")
        #expect(show.stdoutLines.contains { $0.hasPrefix("token") && $0.hasSuffix("  set") }, "\(show.stdoutText)")
        for result in [added, set, setToken, list, json, show] {
            #expect(!result.stdoutText.contains(token) && !result.stderrText.contains(token))
            #expect(!result.stdoutText.contains("other-secret") && !result.stderrText.contains("other-secret"))
        }

        // The default destination is the settings file.
        let url = try Self.destination(sandbox, ["set", "default", "url", "http://127.0.0.1:8/in"])
        #expect(url.succeeded && url.stdoutText.contains("endpoint: http://127.0.0.1:9/overland -> http://127.0.0.1:8/in"), "\(url)")
        let settings = try String(contentsOfFile: sandbox.settingsPath, encoding: .utf8)
        #expect(settings.contains("\"endpoint\": \"http://127.0.0.1:8/in\""))
        // Its protocol is the settings' `protocol`, which takes no broker.
        let defaultTraccar = try Self.destination(sandbox, ["set", "default", "protocol", "traccar"])
        #expect(defaultTraccar.succeeded, "\(defaultTraccar)")
        #expect(try String(contentsOfFile: sandbox.settingsPath, encoding: .utf8).contains("\"protocol\": \"traccar\""))
        #expect(try Self.destination(sandbox, ["show", "default"]).stdoutLines.contains { $0.hasPrefix("protocol") && $0.hasSuffix("traccar") })
        let broker = try Self.destination(sandbox, ["set", "default", "protocol", "mqtt"])
        #expect(broker.exitStatus == 64 && broker.stderrLines.count == 1 && broker.stderrText.contains("protocol"), "\(broker)")
        #expect(try Self.destination(sandbox, ["set", "default", "protocol", "overland"]).succeeded)

        // A state file to be removed with the cursor.
        FileManager.default.createFile(atPath: sandbox.journal + "/state/sync-traccar.json", contents: Data("{}".utf8))
        let removed = try Self.destination(sandbox, ["remove", "traccar"])
        #expect(removed.succeeded && removed.stdoutText == "removed traccar\n", "\(removed)")
        #expect(try !Journal(path: sandbox.journal).cursorNames().contains(try #require(CursorName("traccar"))))
        #expect(!FileManager.default.fileExists(atPath: sandbox.journal + "/state/sync-traccar.json"))
        #expect(try Self.destination(sandbox, ["list"]).stdoutLines.count == 1)
        #expect(try Self.destination(sandbox, ["remove", "traccar"]).exitStatus == 64)
    }

    @Test func fromStartAndTheProfileSuggestion() throws {
        let sandbox = try Self.prepare()
        let added = try Self.destination(sandbox, ["add", "compass", "https://compass.example/api/input", "--from-start"])
        #expect(added.succeeded, "\(added)")
        #expect(added.stdoutText.contains("starts at the journal's first record (0): 30 records waiting"), "\(added.stdoutText)")
        #expect(added.stderrText.contains("overland destination set compass profile compass"), "\(added.stderrText)")
        #expect(try Self.cursor(sandbox, "compass") == 0)
        // Suggested, never applied.
        let show = try Self.destination(sandbox, ["show", "compass"])
        #expect(show.stdoutLines.contains { $0.hasPrefix("profile") && $0.hasSuffix("none") }, "\(show.stdoutText)")
        let given = try Self.destination(sandbox, ["add", "compass2", "https://compass.example/api/input", "--profile", "compass"])
        #expect(given.succeeded && given.stderrText.isEmpty, "\(given)")
    }

    /// `remove` while a sync holds the journal's cursor lock: nothing is removed (not the
    /// destination, not its cursor) and the exit status is 75; once the sync ends, it goes.
    @Test func removeDuringASyncRemovesNothing() throws {
        let sandbox = try Self.prepare()
        #expect(try Self.destination(sandbox, ["add", "backup", "http://127.0.0.1:9/other", "--from-start"]).succeeded)
        let journal = try Journal(path: sandbox.journal)
        var held: JournalLock? = try #require(try journal.tryLockCursors())
        let busy = try Self.destination(sandbox, ["remove", "backup"])
        #expect(busy.exitStatus == 75 && busy.stderrLines.count == 1 && busy.stdout.isEmpty, "\(busy)")
        #expect(busy.stderrText.contains("try again"), "\(busy)")
        let file = try String(contentsOfFile: destinationsPath(sandbox), encoding: .utf8)
        #expect(file.contains("\"backup\""), "the destination is still configured: \(file)")
        #expect(try journal.cursorNames().contains(try #require(CursorName("backup"))))
        withExtendedLifetime(held) {}
        held = nil
        let removed = try Self.destination(sandbox, ["remove", "backup"])
        #expect(removed.succeeded && removed.stdoutText == "removed backup\n", "\(removed)")
        #expect(try !journal.cursorNames().contains(try #require(CursorName("backup"))))
    }

    /// Added at the journal's end, a destination is told how many records it will not get:
    /// those in the journal, not 0.
    @Test func addAtTheEndCountsTheRecordsAlreadyThere() throws {
        let sandbox = try Self.prepare()
        let added = try Self.destination(sandbox, ["add", "late", "http://127.0.0.1:9/other"])
        #expect(added.succeeded, "\(added)")
        #expect(added.stdoutText.contains("to send it the 30 records already there"), "\(added.stdoutText)")
        // One record: counted in the singular.
        let single = try ReliabilitySandbox(prefix: "overland-destination")
        try single.logEpochs(0..<1)
        let one = try Self.destination(single, ["add", "one", "http://127.0.0.1:9/other"])
        #expect(one.succeeded, "\(one)")
        #expect(one.stdoutText.contains("starts at the journal's end (record 1)"), "\(one.stdoutText)")
        #expect(one.stdoutText.contains("to send it the 1 record already there"), "\(one.stdoutText)")
    }

    /// Removing a destination releases the segments only it still needed.
    @Test func removeReleasesWhatItHeld() throws {
        let sandbox = try Self.prepare()
        try sandbox.writeSettings(#"{"endpoint": "http://127.0.0.1:9/overland", "retention_days": 0}"#)
        #expect(try sandbox.overland.run(["journal", "seal", "--journal", sandbox.journal]).succeeded)
        try sandbox.logEpochs(30..<40)
        #expect(try Self.destination(sandbox, ["add", "lagging", "http://127.0.0.1:9/other", "--from-start"]).succeeded)
        try Journal(path: sandbox.journal).advanceCursor(for: .default, to: 40)
        func sealed() throws -> Int? {
            let stats = try sandbox.overland.run(["journal", "stats", "--json", "--journal", sandbox.journal])
            return ((try? JSONScan.object(stats.stdout)))?["sealed_segments"] as? Int
        }
        #expect(try sealed() == 1)
        #expect(try Self.destination(sandbox, ["remove", "lagging"]).succeeded)
        #expect(try sealed() == 0, "the sealed segment only the removed destination needed is deleted")
        #expect(try Journal(path: sandbox.journal).cursor() == 40)
    }

    @Test func refusals() throws {
        let sandbox = try Self.prepare()
        #expect(try Self.destination(sandbox, ["add", "traccar", "http://127.0.0.1:5055", "--protocol", "traccar"]).succeeded)
        let cases: [([String], Int32, String)] = [
            (["add", "Bad Name", "http://x"], 64, "invalid destination name 'Bad Name'"),
            (["add", "a", "ftp://x"], 64, "endpoint 'ftp://x' is not an http:// or https:// url"),
            (["add", "a", "http://x", "--protocol", "carrier-pigeon"], 64, "for \"protocol\""),
            (["add", "a", "http://x", "--profile", "nosuch"], 64, "for \"profile\""),
            (["add", "a", "http://x", "--protocol", "mqtt"], 64, "mqtt:// or mqtts://"),
            (["add", "traccar", "http://x"], 64, "destination 'traccar' exists"),
            (["add", "default", "http://x"], 64, "'default' is the settings' destination"),
            (["set", "traccar", "colour", "red"], 64, "unknown setting \"colour\""),
            (["set", "traccar", "batch_size", "500"], 64, "overland only takes batch_size"),
            (["set", "traccar", "topic", "x"], 64, "mqtt only takes topic"),
            (["set", "traccar", "send_interval", "7m"], 64, "for \"send_interval\""),
            (["set", "nosuch", "url", "http://x"], 64, "no destination 'nosuch'"),
            (["set", "default", "topic", "x"], 64, "the default destination"),
            (["show", "nosuch"], 64, "no destination 'nosuch'"),
            (["remove", "default"], 64, "'default' is the settings' destination"),
            (["remove", "nosuch"], 64, "no destination 'nosuch'"),
        ]
        for (arguments, status, fragment) in cases {
            let result = try Self.destination(sandbox, arguments)
            #expect(result.exitStatus == status, "\(arguments): \(result)")
            #expect(result.stderrLines.count == 1 && result.stderrText.contains(fragment), "\(arguments): \(result.stderrText)")
        }
        #expect(try Self.destination(sandbox, ["list"]).stdoutLines.count == 2, "nothing was added")
    }

    @Test func damagedFileIsNamedAndNeverOverwritten() throws {
        let sandbox = try Self.prepare()
        let path = destinationsPath(sandbox)
        let damaged = "{\n  \"version\": 1,\n  \"destinations\": {\n    \"a\": {\n      \"url\": \"http://x\",\n      \"topic\": \"t\"\n    }\n  }\n}\n"
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(damaged.utf8).write(to: URL(fileURLWithPath: path))
        for arguments in [["list"], ["add", "b", "http://y"], ["set", "a", "url", "http://z"], ["remove", "a"], ["show", "a"]] {
            let result = try Self.destination(sandbox, arguments)
            #expect(result.exitStatus == 78, "\(arguments): \(result)")
            #expect(result.stderrText.contains("'\(path)' line 6: key \"topic\" does not apply to protocol overland (mqtt only takes it)"),
                    "\(arguments): \(result.stderrText)")
        }
        let sync = try sandbox.sync.run(["--journal", sandbox.journal, "--now"])
        #expect(sync.exitStatus == 78 && sync.stderrText.contains("'\(path)' line 6"), "\(sync)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == damaged)
        #expect(try Self.cursor(sandbox, "b") == 0 && (try Journal(path: sandbox.journal).cursorNames()).isEmpty, "add wrote no cursor")
    }
}
