import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("CA files, export modes and dry runs during a move")
struct HostileConfigurationTests {
    // MARK: - 9. CA file, export mode, dry run during a move

    @Test("a missing or unusable --ca-file is exit 78 with one line")
    func caFile() throws {
        let (sandbox, sync) = try RoundTwo.sandbox()
        let empty = try sandbox.file("empty.pem", [])
        for path in [sandbox.directory.appending("missing.pem"), sandbox.directory.path, empty] {
            let result = try sync.run(["--journal", sandbox.journal, "--url", "https://127.0.0.1:9/in", "--ca-file", path, "--now"])
            #expect(result.exitStatus == 78 && result.stderrLines.count == 1 && result.stderrText.contains(path), "\(path): \(result)")
        }
    }

    @Test("export -o onto an existing 0644 file leaves it 0600")
    func exportMode() throws {
        let (sandbox, _) = try RoundTwo.sandbox()
        let path = try sandbox.file("out.csv", Array("old\n".utf8))
        chmod(path, 0o644)
        let result = try sandbox.overland.run(["export", "--journal", sandbox.journal, "--format", "csv", "-o", path])
        result.expectExit(0)
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600, "mode \(String(info.st_mode & 0o777, radix: 8))")
        // A new file is created 0600 under any umask; its mode is never widened.
        let fresh = sandbox.directory.appending("fresh.csv")
        #expect(try sandbox.overland.run(["export", "--journal", sandbox.journal, "--format", "csv", "-o", fresh]).exitStatus == 0)
        #expect(stat(fresh, &info) == 0 && info.st_mode & 0o777 == 0o600)
        chmod(path, 0o400)
        _ = try sandbox.overland.run(["export", "--journal", sandbox.journal, "--format", "csv", "-o", path])
        #expect(stat(path, &info) == 0 && info.st_mode & 0o077 == 0, "never widened: \(String(info.st_mode & 0o777, radix: 8))")
    }

    @Test("--dry-run refuses while a move is pending, as a real sync does (65, the same line)")
    func dryRunDuringAMove() throws {
        let (sandbox, sync) = try RoundTwo.sandbox()
        let id = try Journal(path: sandbox.journal).id.description
        let intent = #"{"version":1,"source_journal_id":"\#(id)","target_journal_id":"\#(id)","target":"/nowhere","segments":[{"name":"00000000000000000000.jsonl.gz","from":0,"end":3,"records":3,"target_first":0}]}"#
        try FileManager.default.createDirectory(atPath: sandbox.journal + "/state", withIntermediateDirectories: true)
        try HostileJournalTests.write(Array(intent.utf8), to: sandbox.journal + "/state/move.json")
        let dry = try sync.run(["--journal", sandbox.journal, "--url", "http://127.0.0.1:9/", "--dry-run"])
        let real = try sync.run(["--journal", sandbox.journal, "--url", "http://127.0.0.1:9/", "--now"])
        real.expectExit(65)
        #expect(dry.exitStatus == 65 && dry.stdoutText.isEmpty && dry.stderrLines.count == 1, "\(dry)")
        #expect(dry.stderrText == real.stderrText, "\(dry)\n\(real)")
    }
}
