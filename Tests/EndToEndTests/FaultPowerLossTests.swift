import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Power loss, simulated on journals the real logger wrote: what was not yet fsynced is
/// lost (the last commit cut at every byte, a tail of zeros where a file system had
/// allocated space, a rename that never reached the disk, a journal shorter than the
/// cursor). Readers and `overland journal verify` take it calmly, the next logger run
/// repairs and carries on, the sync neither loses nor reuses a sequence number.
@Suite struct FaultPowerLossTests {
    /// (offset, size, kind) of every member of a segment file, from the member headers.
    static func members(_ bytes: [UInt8]) -> [(offset: Int, size: Int, kind: UInt8)] {
        var members: [(Int, Int, UInt8)] = []
        var offset = 0
        while offset + 54 <= bytes.count {
            let size = Int(bytes[offset + 20]) | Int(bytes[offset + 21]) << 8 | Int(bytes[offset + 22]) << 16 | Int(bytes[offset + 23]) << 24
            guard size >= 64, offset + size <= bytes.count else { break }
            members.append((offset, size, bytes[offset + 17]))
            offset += size
        }
        return members
    }

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
    }

    /// A journal of a sealed segment (epochs 0..<30) and an active one written by twelve
    /// commits (30..<126); returns the active segment's path.
    static func journalWithCommits(_ sandbox: ReliabilitySandbox) throws -> String {
        let inputs = try ReliabilityLogCrashTests.Script.prepare(sandbox)
        let run = try sandbox.log.run(ReliabilityLogCrashTests.Script.arguments(sandbox, inputs: inputs))
        #expect(run.succeeded, "\(run)")
        let segments = ReliabilitySandbox.files(under: sandbox.journal + "/segments")
        #expect(segments.count == 2, "\(segments)")
        return sandbox.journal + "/segments/" + (try #require(segments.last))
    }

    /// The last commit (its member) cut at every byte: in-process at every offset; through
    /// `overland journal verify` and a further `overland-log` run at a sample of offsets
    /// (every offset in a soak).
    @Test func lastCommitCutAtEveryByte() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-power")
        let segment = try Self.journalWithCommits(sandbox)
        let original = try Self.bytes(segment)
        let members = Self.members(original)
        #expect(members.count >= 12 && members.allSatisfy { $0.kind == 1 }, "\(members.map(\.size))")
        let last = try #require(members.last)
        let all = try sandbox.records().records
        // The records of every commit but the last.
        let earlier = try {
            try Self.write(Array(original[..<last.offset]), to: segment)
            defer { try? Self.write(original, to: segment) }
            return try sandbox.records().records
        }()
        #expect(earlier.count < all.count)

        let stride = Soak.isSoak ? 1 : 16
        var throughTools = 0
        for cut in last.offset...original.count {
            let journal = sandbox.directory.appending("cut")
            try? FileManager.default.removeItem(atPath: journal)
            try copyTree(sandbox.journal, to: journal)
            let path = journal + "/segments/" + (segment as NSString).lastPathComponent
            try Self.write(Array(original[..<cut]), to: path)
            let (records, issues) = try ReliabilitySandbox.read(journal)
            #expect(records == (cut == original.count ? all : earlier), "cut at \(cut)")
            #expect(issues.isEmpty, "cut at \(cut): an unfinished write is not damage: \(issues)")

            let offset = cut - last.offset
            let sampled = offset % stride == 0 || (offset < 60 && offset % 4 == 0) || cut == original.count
            guard sampled else { continue }
            throughTools += 1
            let verify = try sandbox.verify(journal)
            #expect(verify.succeeded, "cut at \(cut): \(verify)")
            let unfinished = cut != last.offset && cut != original.count
            #expect(verify.stdoutText.contains("unfinished write") == unfinished, "cut at \(cut): \(verify.stdoutText)")
            try sandbox.logEpochs(500..<505, journal: journal)
            let (after, afterIssues) = try ReliabilitySandbox.read(journal)
            #expect(afterIssues.isEmpty, "cut at \(cut): \(afterIssues)")
            #expect(Array(after.prefix(records.count)) == records, "cut at \(cut)")
            #expect(JournalInvariant.check(after, context: "cut at \(cut)").suffix(5) == Array(500..<505))
            #expect(try sandbox.verify(journal).succeeded)
            let damaged = ReliabilitySandbox.files(under: journal + "/damaged")
            #expect(damaged.count == (unfinished ? 1 : 0), "cut at \(cut): the cut bytes are kept: \(damaged)")
        }
        let offsets = original.count - last.offset + 1
        Figures.record("power loss: last commit cut at every byte", "byte offsets read in-process", offsets)
        Figures.record("power loss: last commit cut at every byte", "byte offsets through verify and the logger", throughTools)
    }

    /// Zeros where the data should be (a file system that allocated the space but never
    /// wrote it): after the last commit, and over the last commit.
    @Test(arguments: [1, 54, 512, 4096, -1])
    func zeroFilledTail(zeros: Int) throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-power")
        let segment = try Self.journalWithCommits(sandbox)
        let original = try Self.bytes(segment)
        let last = try #require(Self.members(original).last)
        let all = try sandbox.records().records
        var damagedBytes = original
        if zeros > 0 {
            damagedBytes += [UInt8](repeating: 0, count: zeros)
        } else {
            // The last commit's member is all zeros.
            damagedBytes.replaceSubrange(last.offset..., with: [UInt8](repeating: 0, count: last.size))
        }
        try Self.write(damagedBytes, to: segment)
        let expected = zeros > 0 ? all : Array(all.dropLast(all.count - (try {
            try Self.write(Array(original[..<last.offset]), to: segment)
            defer { try? Self.write(damagedBytes, to: segment) }
            return try sandbox.records().records.count
        }())))
        let (records, issues) = try sandbox.records()
        #expect(records == expected)
        #expect(issues.isEmpty, "\(issues)")
        let verify = try sandbox.verify()
        #expect(verify.succeeded && verify.stdoutText.contains("unfinished write"), "\(verify)")
        try sandbox.logEpochs(500..<505)
        let after = try sandbox.records().records
        #expect(Array(after.prefix(records.count)) == records)
        #expect(JournalInvariant.check(after, context: "zeros \(zeros)").suffix(5) == Array(500..<505))
        #expect(ReliabilitySandbox.files(under: sandbox.journal + "/damaged").isEmpty, "zeros are not kept")
        #expect(try sandbox.verify().succeeded)
        Figures.record("power loss: zero-filled tails", "tails (1, 54, 512, 4096 zeros after; the last commit zeroed)", 1)
    }

    /// A seal whose rename never reached the disk: the old, unsealed file is back and the
    /// sealed copy lies in `.tmp-NAME`. The same records; recovery removes the copy.
    @Test func sealRenameLost() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-power")
        let segment = try Self.journalWithCommits(sandbox)
        let unsealed = try Self.bytes(segment)
        let all = try sandbox.records().records
        let sealed = try sandbox.overland.run(["journal", "seal", "--journal", sandbox.journal])
        #expect(sealed.succeeded, "\(sealed)")
        let sealedBytes = try Self.bytes(segment)
        #expect(Self.members(sealedBytes).last?.kind == 2)
        let name = (segment as NSString).lastPathComponent
        try Self.write(sealedBytes, to: sandbox.journal + "/segments/.tmp-" + name)
        try Self.write(unsealed, to: segment)

        #expect(try sandbox.records().records == all)
        #expect(try sandbox.verify().succeeded)
        try sandbox.logEpochs(500..<505)
        #expect(JournalInvariant.check(try sandbox.records().records, context: "seal rename lost").suffix(5) == Array(500..<505))
        #expect(!ReliabilitySandbox.files(under: sandbox.journal + "/segments").contains(".tmp-" + name))
        Figures.record("power loss: a rename lost", "seal rename", 1)
    }

    /// A new segment whose directory entry never reached the disk (its commit had not
    /// returned): the segment is gone, its numbers are used again by the next commit.
    @Test func newSegmentRenameLost() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-power")
        let segment = try Self.journalWithCommits(sandbox)
        let kept = try {
            let bytes = try Self.bytes(segment)
            try FileManager.default.removeItem(atPath: segment)
            return bytes
        }()
        #expect(!kept.isEmpty)
        let records = try sandbox.records().records
        #expect(JournalInvariant.check(records, context: "segment lost") == Array(ReliabilityLogCrashTests.Script.history))
        #expect(try sandbox.verify().succeeded)
        try sandbox.logEpochs(500..<505)
        let after = try sandbox.records().records
        #expect(JournalInvariant.check(after, context: "after") == Array(ReliabilityLogCrashTests.Script.history) + Array(500..<505))
        Figures.record("power loss: a rename lost", "new segment rename", 1)
    }

    /// The cursor's last rename lost: the old cursor is back (the new one in
    /// `.tmp-cursor.json`); the next sync sends the last batch again, nothing else.
    @Test func cursorRenameLost() throws {
        let sandbox = try SyncCrashTests.prepare(points: 200)
        let lines = try sandbox.records().records.map(\.line)
        let server = try LocalServer()
        // One batch a run, whatever the machine's speed: every other request is refused,
        // so each run delivers one batch and stops at the next (75).
        let stepping = try LocalServer { index, _ in index % 2 == 0 ? LocalServer.ok() : LocalServer.text(503, "busy") }
        let journal = try Journal(path: sandbox.journal)
        let cursorPath = sandbox.journal + "/cursor.json"
        // Three batches, keeping the cursor file before the third.
        for _ in 0..<2 {
            try sandbox.sync.run(SyncCrashTests.syncArguments(sandbox, stepping), environment: SyncCrashTests.environment).expectExit(75)
        }
        let before = try Self.bytes(cursorPath)
        try sandbox.sync.run(SyncCrashTests.syncArguments(sandbox, stepping), environment: SyncCrashTests.environment).expectExit(75)
        #expect(try journal.cursor() == 150)
        try Self.write(try Self.bytes(cursorPath), to: sandbox.journal + "/.tmp-cursor.json")
        try Self.write(before, to: cursorPath)
        #expect(try journal.cursor() == 100)

        // This machine's registry of journals (copy detection) saw the cursor at 150: the
        // sync refuses the journal as an older copy, saying how to send anyway.
        let refused = try sandbox.sync.run(SyncCrashTests.syncArguments(sandbox, server), environment: SyncCrashTests.environment)
        refused.expectExit(65)
        #expect(refused.stderrText.contains("--accept-copy"), "\(refused)")
        let finished = try sandbox.sync.run(SyncCrashTests.syncArguments(sandbox, server) + ["--accept-copy"],
                                            environment: SyncCrashTests.environment)
        #expect(finished.succeeded, "\(finished)")
        #expect(try journal.cursor() == 200)
        let acknowledged = stepping.requests.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        #expect(acknowledged.count == 3 && stepping.requests.count == 6, "\(stepping.requests.count) requests in three runs")
        let resends = Delivery(requests: acknowledged + server.requests, lines: lines)
            .check(total: 200, maximumResends: 1, context: "cursor rename lost")
        #expect(resends == 1)
        Figures.record("power loss: a rename lost", "cursor rename", 1)
    }

    /// The journal came back shorter than the cursor (records sent, then lost with data the
    /// disk had not kept): the logger continues at the cursor, so no sent number is used
    /// again, and the sync sends every new point.
    @Test func journalShorterThanTheCursor() throws {
        let sandbox = try SyncCrashTests.prepare(points: 100)
        let server = try LocalServer()
        #expect(try sandbox.sync.run(SyncCrashTests.syncArguments(sandbox, server), environment: SyncCrashTests.environment).succeeded)
        #expect(try sandbox.cursor() == 100)
        // Lose the last 40 records: cut the active segment back to an earlier member.
        let segments = ReliabilitySandbox.files(under: sandbox.journal + "/segments").filter { !$0.hasPrefix(".") }
        let segment = sandbox.journal + "/segments/" + (try #require(segments.last))
        let bytes = try Self.bytes(segment)
        let members = Self.members(bytes)
        #expect(!members.isEmpty)
        // The logger wrote one member per 64 KiB read; rewrite the journal from 60 epochs to
        // have a member boundary at 60.
        try FileManager.default.removeItem(atPath: sandbox.journal)
        try sandbox.logEpochs(0..<60)
        let cursorJSON = "{\"journal_id\":\"\(try Journal(path: sandbox.journal).id)\",\"next\":100}\n"
        try Self.write(Array(cursorJSON.utf8), to: sandbox.journal + "/cursor.json")
        #expect(try sandbox.cursor() == 100)
        #expect(try sandbox.verify().succeeded)

        server.clearRequests()
        try sandbox.logEpochs(200..<230)
        let records = try sandbox.records().records
        #expect(records.count == 90)
        #expect(records.suffix(30).map(\.sequence) == (100..<130).map { UInt64($0) }, "new records continue at the cursor")
        let synced = try sandbox.sync.run(SyncCrashTests.syncArguments(sandbox, server), environment: SyncCrashTests.environment)
        #expect(synced.succeeded, "\(synced)")
        let sent = server.requests.flatMap { Delivery.elements(of: Delivery.rawLocations($0.body) ?? "[]") }
        #expect(sent.compactMap(SyntheticDrive.index(ofRecord:)) == Array(200..<230), "every new point, once")
        #expect(try sandbox.cursor() == 130)
        Figures.record("power loss: journal shorter than the cursor", "recoveries", 1)
    }
}
