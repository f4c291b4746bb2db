import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("settings files and journal directories others can read or write")
struct HostileExposureTests {
    // MARK: - 10. Who may write

    @Test("a settings file others can read (with a token) or write, or owned by another user: one warning per run")
    func exposedSettingsFile() throws {
        let (sandbox, _) = try RoundTwo.sandbox()
        try sandbox.writeSettings(#"{"endpoint": "https://example.com/in", "token": "\#(RoundTwo.token)"}"#)
        let path = sandbox.settingsPath
        for (mode, warned) in [(0o644, true), (0o640, true), (0o600, false), (0o400, false)] {
            chmod(path, mode_t(mode))
            let list = try sandbox.overland.run(["config", "list"])
            list.expectExit(0)
            let warnings = list.stderrLines.filter { $0.contains("warning") }
            #expect(warnings.count == (warned ? 1 : 0), "mode \(String(mode, radix: 8)): \(list.stderrText)")
            if warned { #expect(warnings.first?.contains("chmod 600") == true && RoundTwo.tokenRuns(in: list.stderrText).isEmpty) }
        }
        // Writable by others warns even without a token.
        try sandbox.writeSettings(#"{"main": {"batch_size": 500}}"#)
        chmod(path, 0o666)
        let status = try sandbox.overland.run(["status", "--journal", sandbox.journal])
        #expect(status.exitStatus == 0 && status.stderrLines.count == 1 && status.stderrText.contains("other users can change it"), "\(status)")
        chmod(path, 0o644)
        #expect(try sandbox.overland.run(["status", "--journal", sandbox.journal]).stderrText.isEmpty, "no token, not writable: quiet")
        // Owned by another user (tests run as root here: give it to nobody and run as nobody's neighbour is not possible; check root sees no warning for its own).
    }

    @Test("a journal directory any user can write is refused with one line, by every command")
    func worldWritableJournal() throws {
        let (sandbox, sync) = try RoundTwo.sandbox()
        chmod(sandbox.journal, 0o777)
        let runs: [(ToolRunner, [String])] = [
            (sandbox.overland, ["status", "--journal", sandbox.journal]),
            (sandbox.overland, ["journal", "stats", "--journal", sandbox.journal]),
            (sandbox.overland, ["export", "--format", "csv", "--journal", sandbox.journal]),
            (sandbox.logger, ["--journal", sandbox.journal, "/dev/null"]),
            (sync, ["--journal", sandbox.journal, "--url", "http://127.0.0.1:9/", "--dry-run"]),
        ]
        for (tool, arguments) in runs {
            let result = try tool.run(arguments)
            #expect(result.exitStatus == 77 && result.stderrLines.count == 1, "\(arguments): \(result)")
            #expect(result.stderrText.contains("any user can write") && result.stderrText.contains("chmod 700"), "\(result.stderrText)")
        }
        chmod(sandbox.journal, 0o700)
        #expect(try sandbox.overland.run(["status", "--journal", sandbox.journal]).exitStatus == 0)
    }
}
