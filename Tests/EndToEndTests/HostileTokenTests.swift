import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("the token behind padding in what a server sends")
struct HostileTokenTests {
    // MARK: - 7. The token behind padding

    @Test("a server set value of 63 padding characters and the token, or the token cut and split, shows no 4 of its characters",
          arguments: [String(repeating: "x", count: 63) + RoundTwo.token, String(repeating: "é", count: 70) + RoundTwo.token,
                      String(RoundTwo.token.dropFirst(5)), RoundTwo.token.prefix(12) + "," + RoundTwo.token.dropFirst(12)])
    func tokenBehindPadding(value: String) throws {
        let (sandbox, sync) = try RoundTwo.sandbox()
        let reply = #"{"result":"ok","set":{"batch_size":"\#(value)","\#(value)":1,"main":{"min_distance":"\#(value)"}}}"#
        let server = try LocalServer { _, _ in LocalServer.text(200, reply) }
        defer { server.stop() }
        let result = try sync.run(["--journal", sandbox.journal, "--url", server.url, "--now", "-v"],
                                  environment: ["OVERLAND_TOKEN": RoundTwo.token])
        result.expectExit(0)
        #expect(result.stderrText.contains("ignored"), "the warnings are there: \(result.stderrText)")
        #expect(RoundTwo.tokenRuns(in: result.stdoutText + result.stderrText).isEmpty, "\(result.stderrText)")
        // And in an error body, kept in state/sync.json and shown by status.
        let failing = try LocalServer { _, _ in LocalServer.text(500, #"{"error":"\#(value)"}"#) }
        defer { failing.stop() }
        #expect(try sandbox.log([], stdin: Array(HostileNumbersLogTests.epoch(50).utf8)).exitStatus == 0)
        let failed = try sync.run(["--journal", sandbox.journal, "--url", failing.url, "--now"], environment: ["OVERLAND_TOKEN": RoundTwo.token])
        failed.expectExit(75)
        let status = try sandbox.overland.run(["status", "--journal", sandbox.journal])
        let state = try String(contentsOfFile: sandbox.journal + "/state/sync.json", encoding: .utf8)
        #expect(RoundTwo.tokenRuns(in: failed.stderrText + status.stdoutText + state).isEmpty, "\(failed.stderrText)\n\(state)")
    }
}
