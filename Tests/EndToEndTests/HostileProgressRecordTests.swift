import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A progress record that is not a file (issue 32, item 3): a symlink, FIFO or directory at
/// `state/progress-default` (a stick is untrusted) is ignored, never refused, and replaced
/// (journal-format.md section 9). Before, the sync sent one batch, refused to write over it
/// at the second ("is a symbolic link", exit 65) with the cursor file left at the first,
/// and every later run sent that second batch again and never the rest.
@Suite("A progress record that is not a file")
struct HostileProgressRecordTests {
    enum Plant: String, CaseIterable { case symlink, fifo, directory }

    @Test("the sync replaces it and sends every point once", arguments: Plant.allCases)
    func replacedNotRefused(plant: Plant) throws {
        let points = 400
        let sandbox = try SyncCrashTests.prepare(points: points)
        let progress = sandbox.journal + "/state/progress-default"
        let outside = try sandbox.file("outside", "not the journal's\n")
        switch plant {
        case .symlink: try #require(symlink(outside, progress) == 0)
        case .fifo: try #require(mkfifo(progress, 0o600) == 0)
        case .directory:
            try #require(mkdir(progress, 0o700) == 0)
            try Data("a user's file\n".utf8).write(to: URL(fileURLWithPath: progress + "/kept"))
        }
        let server = try LocalServer()
        defer { server.stop() }

        let first = try sandbox.sync.run(SyncCrashTests.syncArguments(sandbox, server), environment: SyncCrashTests.environment)
        first.expectExit(0)
        #expect(try sandbox.cursor() == UInt64(points))
        let lines = try sandbox.records().records.map(\.line)
        Delivery(requests: server.requests, lines: lines).check(total: points, maximumResends: 0, context: "\(plant)")

        var info = stat()
        try #require(lstat(progress, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFREG, "replaced by a regular file")
        #expect(info.st_size == 76)
        #expect(try String(contentsOfFile: outside, encoding: .utf8) == "not the journal's\n", "a link is never followed")
        if plant == .directory {
            let kept = try FileManager.default.contentsOfDirectory(atPath: sandbox.journal + "/damaged")
            let name = try #require(kept.first, "the directory was set aside in damaged/")
            #expect(kept.count == 1 && name.hasPrefix("progress-default.not-a-file-"), "\(kept)")
            #expect(try String(contentsOfFile: sandbox.journal + "/damaged/" + name + "/kept", encoding: .utf8) == "a user's file\n")
        }

        server.clearRequests()
        let again = try sandbox.sync.run(SyncCrashTests.syncArguments(sandbox, server), environment: SyncCrashTests.environment)
        again.expectExit(0)
        #expect(server.requests.isEmpty, "nothing is sent again: \(server.requests.count) requests")
        let verify = try sandbox.overland.run(["journal", "verify", "--journal", sandbox.journal, "--json"])
        #expect(verify.exitStatus == 0 && verify.stdoutText.contains(#""progress": "valid""#), "\(verify)")
    }
}
