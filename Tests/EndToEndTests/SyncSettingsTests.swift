import TestSupport
import Foundation
import Testing

/// A server's `set` reaching the settings file, as `overland config list` shows it.
@Suite struct SyncSettingsTests {
    @Test func aServerSetIsSavedAndShownWithWarningsForWhatWasIgnored() throws {
        let sandbox = try LogSandbox()
        #expect(try sandbox.logger.run(["--journal", sandbox.journal, LogSamples.bundled]).exitStatus == 0)
        let reply = #"{"result":"ok","set":{"send_interval":"1m","main":{"batch_size":500,"min_distance":"bogus","no_such":1},"colour":"red"}}"#
        let server = try LocalServer { _, _ in LocalServer.text(200, reply) }
        defer { server.stop() }
        var sync = ToolRunner(product: "overland-sync")
        sync.environment = sandbox.logger.environment
        let result = try sync.run(["--journal", sandbox.journal, "--url", server.url, "--now"])
        result.expectExit(0)
        // Each ignored key or value is named once on stderr.
        #expect(result.stderrText.contains("bogus") && result.stderrText.contains("no_such") && result.stderrText.contains("colour"),
                "\(result.stderrText)")
        let list = try sandbox.overland.run(["config", "list"])
        list.expectExit(0)
        let lines = list.stdoutLines
        #expect(lines.contains { $0.hasPrefix("send_interval ") && $0.contains("1m") }, "\(list.stdoutText)")
        #expect(lines.contains { $0.hasPrefix("batch_size ") && $0.contains("500") }, "\(list.stdoutText)")
        #expect(lines.contains { $0.hasPrefix("min_distance ") && $0.contains("off") }, "the bad value was ignored: \(list.stdoutText)")
    }

    @Test func sendIntervalOffIsADeadEndTheUserIsToldAbout() throws {
        let sandbox = try LogSandbox()
        #expect(try sandbox.logger.run(["--journal", sandbox.journal, LogSamples.bundled]).exitStatus == 0)
        let server = try LocalServer { _, _ in LocalServer.text(200, #"{"result":"ok","set":{"send_interval":"off"}}"#) }
        defer { server.stop() }
        var sync = ToolRunner(product: "overland-sync")
        sync.environment = sandbox.logger.environment
        let first = try sync.run(["--journal", sandbox.journal, "--url", server.url, "--now"])
        #expect(first.exitStatus == 0 && first.stderrText.contains("send_interval"), "\(first)")
        #expect(try sandbox.overland.run(["config", "get", "send_interval"]).stdoutText == "off\n")
        // Nothing is sent now, unless --now.
        #expect(try sandbox.logger.run(["--journal", sandbox.journal, LogSamples.bundled]).exitStatus == 0)
        let before = server.requests.count
        let second = try sync.run(["--journal", sandbox.journal, "--url", server.url, "-v"])
        #expect(second.exitStatus == 0 && second.stderrText.contains("sending is off"), "\(second)")
        #expect(server.requests.count == before)
    }
}
