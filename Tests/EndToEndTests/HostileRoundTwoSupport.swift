import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What the round-two hostile tests of the real commands share: a sandbox with a few
/// logged points, the token and a check for any 4 of its characters, the sync state.
enum RoundTwo {
    static let token = "tok-Zq81fW3mYp0vXc7RbN2sLk5JdH9gTa4u"

    /// A sandbox with a journal of `count` logged epochs.
    static func sandbox(epochs count: Int = 3) throws -> (LogSandbox, ToolRunner) {
        let sandbox = try LogSandbox()
        let input = Array((0..<count).map { HostileNumbersLogTests.epoch($0) }.joined().utf8)
        // The machine's own device id: the sync takes the journal for this machine's own.
        let logged = try sandbox.log(["--commit-interval", "0"], stdin: input)
        logged.expectExit(0)
        var sync = ToolRunner(product: "overland-sync")
        sync.environment = sandbox.logger.environment
        return (sandbox, sync)
    }

    /// Every run of 4 characters of the token found in `text`.
    static func tokenRuns(in text: String) -> [String] {
        let characters = Array(token)
        return (0...(characters.count - 4)).map { String(characters[$0..<($0 + 4)]) }.filter { text.contains($0) }
    }

    static func syncState(_ sandbox: LogSandbox) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: sandbox.journal + "/state/sync.json"))
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

}
