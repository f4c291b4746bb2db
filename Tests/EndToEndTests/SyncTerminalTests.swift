import TestSupport
import Foundation
import Testing

/// From a terminal a run that sends nothing says why and when the next attempt is; from
/// cron it stays quiet.
@Suite struct SyncTerminalTests {
    /// Runs overland-sync on a pseudo-terminal (util-linux `script`): what a person at a
    /// terminal sees, stdout and stderr together.
    static func onTerminal(_ sandbox: ReliabilitySandbox, _ arguments: [String]) throws -> ToolResult {
        let quoted = ([sandbox.sync.executable] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let script = ToolRunner(executable: "/usr/bin/script")
        var environment = sandbox.sync.environment
        environment["TERM"] = "dumb"
        return try script.run(["-qec", quoted.joined(separator: " "), "/dev/null"], environment: environment)
    }

    @Test func notDueIsExplainedOnATerminalOnly() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-honesty")
        try sandbox.logEpochs(0..<5)
        try sandbox.writeSettings(#"{"send_interval": "5m"}"#)
        let server = try LocalServer()
        defer { server.stop() }
        let arguments = ["--journal", sandbox.journal, "--url", server.url]
        #expect(try sandbox.sync.run(arguments).exitStatus == 0)
        try sandbox.logEpochs(5..<10)
        // From cron (no terminal): quiet.
        let quiet = try sandbox.sync.run(arguments)
        #expect(quiet.exitStatus == 0 && quiet.stderr.isEmpty && quiet.stdout.isEmpty, "\(quiet)")
        // From a terminal: one line, why and when.
        let told = try Self.onTerminal(sandbox, arguments)
        told.expectExit(0)
        let lines = told.stdoutLines.filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
        #expect(lines.count == 1, "\(told.stdoutText)")
        let line = try #require(lines.first)
        #expect(line.contains("send interval") && line.contains("next attempt at ") && line.contains("(in "), "\(line)")
        #expect(line.contains("--now"), "\(line)")
        #expect(server.requests.count == 1)
    }

    @Test func aBackoffIsExplainedOnATerminalOnly() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-honesty")
        try sandbox.logEpochs(0..<5)
        let server = try LocalServer { _, _ in LocalServer.text(503, "busy") }
        defer { server.stop() }
        let arguments = ["--journal", sandbox.journal, "--url", server.url]
        #expect(try sandbox.sync.run(arguments).exitStatus == 75)
        let quiet = try sandbox.sync.run(arguments)
        #expect(quiet.exitStatus == 0 && quiet.stderr.isEmpty, "\(quiet)")
        let told = try Self.onTerminal(sandbox, arguments)
        let lines = told.stdoutLines.filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
        #expect(lines.count == 1, "\(told.stdoutText)")
        let line = try #require(lines.first)
        #expect(line.contains("backing off after 1 failed attempt") && line.contains("next attempt at ") && line.contains("(in "), "\(line)")
        #expect(server.requests.count == 1, "no attempt while backing off")
    }
}
