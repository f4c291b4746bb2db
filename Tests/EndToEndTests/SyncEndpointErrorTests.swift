import TestSupport
import Foundation
import Testing

/// A wrong endpoint (404, 405, 410) is a configuration error: exit 78, points kept, one
/// line naming the url (its token redacted) and the status.
@Suite struct SyncEndpointErrorTests {
    @Test(arguments: [404, 405, 410])
    func aWrongEndpointIsAConfigurationError(status: Int) throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-honesty")
        try sandbox.logEpochs(0..<30)
        let server = try LocalServer { _, _ in LocalServer.text(status, "<html>nothing here</html>") }
        defer { server.stop() }
        let token = "s3cr3t-t0k3n-value"
        let url = server.url + "?token=" + token
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--url", url, "--now"],
                                          environment: ["OVERLAND_TOKEN": token])
        result.expectExit(78)
        #expect(result.stderrLines.count == 1, "\(result.stderrText)")
        let line = try #require(result.stderrLines.first)
        #expect(line.contains(server.url + "?token=<redacted>:") && line.contains("\(status)"), "\(line)")
        #expect(line.contains("30 points kept"), "\(line)")
        #expect(!line.contains(token) && !line.contains("s3cr3t"), "\(line)")
        #expect(try sandbox.cursor() == 0, "points kept")
    }
}
