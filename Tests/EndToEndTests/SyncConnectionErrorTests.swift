import TestSupport
import Foundation
import Testing

/// A failed connection reads as one plain line naming HOST:PORT ("cannot connect to
/// 127.0.0.1:PORT: connection refused"), not NIO's error text.
@Suite struct SyncConnectionErrorTests {
    @Test func aRefusedConnectionSaysSoPlainly() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-honesty")
        try sandbox.logEpochs(0..<5)
        let port = try LocalServer.closedPort()
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--url", "http://127.0.0.1:\(port)/overland", "--now"])
        result.expectExit(75)
        #expect(result.stderrLines.count == 1, "\(result.stderrText)")
        #expect(result.stderrText.contains("cannot connect to 127.0.0.1:\(port): connection refused"), "\(result.stderrText)")
        #expect(!result.stderrText.contains("errno"), "\(result.stderrText)")
    }
}
