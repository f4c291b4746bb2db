import TestSupport
import Foundation
import Testing

/// What the commands show of values they read (issue 32, items 6 and 7): every url-valued
/// key by the one rule (`SettingKey.holdsURL`, `RedactedURL.shown`), and every value from a
/// file escaped on its line (`PrintableText.escaped`).
@Suite("values shown by the commands")
struct HostileShownValueTests {
    static let password = "Pw7Qz2Lx9Rk4Vm1T"
    static let key = "Kq3Zt8Nw1Hy6Bs4D"
    static let fragment = "Fx5Jc2Gr9Ul3Me7A"

    /// `verify_url`'s password, query and fragment were printed whole in `destination set`'s
    /// change line and in `destination show`, where `url` shows `<redacted>`.
    @Test func verifyURLSecretsAreNeverShown() throws {
        let sandbox = try DestinationCommandTests.prepare()
        let verifyURL = "http://bob:\(Self.password)@127.0.0.1:9/prefix?key=\(Self.key)#\(Self.fragment)"
        var outputs: [(String, ToolResult)] = []
        func overland(_ arguments: [String]) throws {
            let result = try sandbox.overland.run(arguments)
            #expect(result.exitStatus == 0, "\(arguments): \(result)")
            outputs.append((arguments.joined(separator: " "), result))
        }
        try overland(["destination", "add", "rb", "http://127.0.0.1:9/api", "--journal", sandbox.journal])
        try overland(["destination", "set", "rb", "verify_url", verifyURL])
        try overland(["destination", "show", "rb"])
        try overland(["destination", "list", "--json"])
        try overland(["destination", "set", "default", "verify_url", verifyURL])
        try overland(["destination", "show", "default"])
        try overland(["config", "list"])
        try overland(["config", "list", "--json"])
        try overland(["destination", "set", "rb", "verify_url", "http://127.0.0.1:9/other"])
        try overland(["config", "set", "verify_url", "http://127.0.0.1:9/other"])

        for (name, result) in outputs {
            let text = result.stdoutText + result.stderrText
            for secret in [Self.password, Self.key, Self.fragment] {
                #expect(!text.contains(secret.prefix(6)), "\(name) shows a secret: \(text)")
            }
        }
        let shown = "http://bob:<redacted>@127.0.0.1:9/prefix?key=<redacted>#<redacted>"
        let set = try #require(outputs.first { $0.0.hasPrefix("destination set rb verify_url http://bob") }?.1)
        #expect(set.stdoutText == "rb.verify_url: (none) -> \(shown)\n", "\(set)")
        let show = try #require(outputs.first { $0.0 == "destination show rb" }?.1)
        #expect(show.stdoutLines.contains { $0.hasPrefix("verify_url") && $0.hasSuffix(shown) }, "\(show.stdoutText)")
        let list = try #require(outputs.first { $0.0 == "destination list --json" }?.1)
        let array = try #require((try? JSONScan.value(list.stdout)) as? [[String: Any]])
        #expect(array.last?["verify_url"] as? String == shown, "\(list.stdoutText)")
        let back = try #require(outputs.first { $0.0 == "destination set rb verify_url http://127.0.0.1:9/other" }?.1)
        #expect(back.stdoutText == "rb.verify_url: \(shown) -> http://127.0.0.1:9/other\n", "\(back)")
        // Saved whole: only the showing hides it.
        let file = try String(contentsOfFile: sandbox.directory.appending("config/overland/destinations.json"), encoding: .utf8)
        #expect(file.contains("127.0.0.1:9/other"))
    }

    /// A newline (or any control character) in `tracking.json`'s `by` printed a line of
    /// its own in `overland status`, one that looks like the status's.
    @Test func aValueFromAFileStaysOnItsLine() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-shown-values")
        try sandbox.logEpochs(0..<3)
        try sandbox.writeSettings(#"{"main": {"tracking_mode": "off"}}"#)
        _ = try sandbox.file("config/overland/tracking.json", #"{"version":1,"tracking":"off","since":"2026-11-26T09:12:00Z","#
                             + #""by":"overland config\nqueued      0 points\n\u001b[2Jlast sent   just now"}"# + "\n")

        let status = try sandbox.overland.run(["status", "--journal", sandbox.journal])
        status.expectExit(0)
        let off = try #require(status.stdoutLines.first, "\(status)")
        #expect(off.contains(#"set by overland config\nqueued      0 points\n\u{1B}[2Jlast sent   just now"#), "\(off)")
        #expect(!status.stdoutLines.contains { $0.hasPrefix("last sent   just now") || $0.hasPrefix("queued      0 points") },
                "no line of the status comes from the file: \(status.stdoutText)")
        #expect(!status.stdoutText.contains("\u{1B}"))
        let log = try sandbox.log.run(["--journal", sandbox.journal, try sandbox.file("none.nmea", "")])
        #expect(log.stderrText.contains(#"set by overland config\nqueued"#), "\(log)")
        #expect(!log.stderrLines.contains { $0.hasPrefix("queued") }, "\(log)")

        // A saved error from a state file: the same, in the destination's block.
        try sandbox.writeSettings(#"{"endpoint": "http://127.0.0.1:9/overland"}"#)
        let added = try sandbox.overland.run(["destination", "add", "other", "http://127.0.0.1:9/other", "--journal", sandbox.journal])
        added.expectExit(0)
        _ = try sandbox.file("journal/state/sync-other.json",
                             #"{"version":1,"consecutive_failures":2,"last_error":"refused\ndestination evil\n  queued  0 points"}"# + "\n")
        let blocks = try sandbox.overland.run(["status", "--journal", sandbox.journal])
        blocks.expectExit(0)
        #expect(blocks.stdoutText.contains(#"last error  refused\ndestination evil\n  queued  0 points (2 failed attempts)"#), "\(blocks.stdoutText)")
        #expect(!blocks.stdoutLines.contains("destination evil"), "\(blocks.stdoutText)")
    }
}
