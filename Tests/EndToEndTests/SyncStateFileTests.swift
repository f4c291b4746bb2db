import TestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a sync state file may be (journal-format.md section 1, issue 33): one that does not
/// parse is no state, and the run goes on; one that is not a regular file, or is over
/// 64 KiB, is not read (a FIFO is never opened) and cannot be replaced whole: that
/// destination does not run, what is said names the file, exit 74.
@Suite("sync state files the sync cannot use")
struct SyncStateFileTests {
    enum Plant: String, CaseIterable { case fifo, directory, symlink, oversized }

    @Test("not a regular file, or too large: refused naming the file, exit 74, nothing sent", arguments: Plant.allCases)
    func refused(plant: Plant) throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-sync-state")
        try sandbox.logEpochs(0..<5)
        let path = sandbox.journal + "/state/sync.json"
        switch plant {
        case .fifo: try #require(mkfifo(path, 0o600) == 0)
        case .directory: try #require(mkdir(path, 0o700) == 0)
        case .symlink: try #require(symlink(try sandbox.file("elsewhere.json", "{}\n"), path) == 0)
        case .oversized: _ = try sandbox.file("journal/state/sync.json", "{\"pad\":\"" + String(repeating: "x", count: 65_536) + "\"}\n")
        }
        let server = try LocalServer()
        defer { server.stop() }
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--url", server.url, "--now"],
                                          environment: SyncCrashTests.environment)
        result.expectExit(74)
        #expect(!result.stderrLines.isEmpty && result.stderrLines.allSatisfy { $0.contains(path) }, "\(result)")
        #expect(server.requests.isEmpty)
    }

    @Test("a regular file that does not parse is no state: the run goes on")
    func unparsableIsNoState() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-sync-state")
        try sandbox.logEpochs(0..<5)
        _ = try sandbox.file("journal/state/sync.json", "not json\n")
        let server = try LocalServer()
        defer { server.stop() }
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--url", server.url, "--now"],
                                          environment: SyncCrashTests.environment)
        result.expectExit(0)
        #expect(result.stderrText.contains(sandbox.journal + "/state/sync.json"), "said: \(result)")
        #expect(try sandbox.cursor() == 5)
    }
}
