import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Oversized segments for the tools that write: the logger's recovery of the newest segment,
/// `journal seal`, `journal repair` and `journal move` read a member at a time and write
/// (the sealed segment, the copy in damaged/, the moved segment) a piece at a time, so
/// their peak RSS does not grow with a hostile segment's size. Measured with GNU time.
@Suite("hostile segment sizes: memory of the writers")
struct HostileWriterMemoryTests {
    static let junkBytes = 200 << 20

    /// A journal of 20 real records in one sealed segment; returns the sequence after them.
    static func journal() throws -> (LogSandbox, UInt64) {
        let sandbox = try LogSandbox()
        let input = Array((0..<20).map { HostileNumbersLogTests.epoch($0) }.joined().utf8)
        #expect(try sandbox.log(["--commit-interval", "0"], stdin: input).exitStatus == 0)
        #expect(try sandbox.overland.run(["journal", "seal", "--journal", sandbox.journal]).exitStatus == 0)
        return (sandbox, try Journal(path: sandbox.journal).endSequence())
    }

    static func segmentPath(_ sandbox: LogSandbox, _ first: UInt64) -> String {
        sandbox.journal + "/segments/" + String(format: "%020llu.jsonl.gz", first)
    }

    /// A records member of one real record numbered `sequence`.
    static func member(_ sandbox: LogSandbox, _ sequence: UInt64) throws -> [UInt8] {
        let payload = Array((MoveRecords.line(Int(sequence)) + "\n").utf8)
        return HostileJournalTests.member(
            firstSequence: sequence, count: 1, journalID: try HostileJournalTests.journalID(sandbox.journal),
            deflate: try HostileJournalTests.deflate(payload), crc: HostileJournalTests.crc32(payload), isize: UInt32(payload.count))
    }

    /// The 64-byte seal of a segment whose first record is `first`, holding `count` records.
    static func seal(_ sandbox: LogSandbox, first: UInt64, count: UInt32) throws -> [UInt8] {
        var seal = HostileJournalTests.member(firstSequence: first, count: count,
                                              journalID: try HostileJournalTests.journalID(sandbox.journal),
                                              deflate: [0x03, 0x00], crc: 0, isize: 0)
        seal[17] = 2
        let crc = HostileJournalTests.crc32(seal[0..<52])
        seal[52] = UInt8(truncatingIfNeeded: crc)
        seal[53] = UInt8(truncatingIfNeeded: crc >> 8)
        return seal
    }

    /// Writes `parts` to `path`: byte arrays as they are, and `nil` as `junkBytes` of junk
    /// (not zeros, no gzip magic), written a MiB at a time.
    static func writeSegment(_ path: String, _ parts: [[UInt8]?]) throws {
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        chmod(path, 0o600)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let junk = Data(repeating: 0xA5, count: 1 << 20)
        for part in parts {
            if let part {
                try handle.write(contentsOf: part)
            } else {
                for _ in 0..<(junkBytes >> 20) { try handle.write(contentsOf: junk) }
            }
        }
    }

    static func damagedFiles(_ sandbox: LogSandbox) -> [(name: String, size: Int)] {
        let directory = sandbox.journal + "/damaged"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.sorted().map { ($0, FileSystemSize.of(directory + "/" + $0)) }
    }

    /// Peak RSS of `overland --help`, the floor of a debug executable, and the bound: well
    /// below the segment's size, whatever the build.
    static func bound(_ sandbox: LogSandbox) throws -> (floor: Int, bound: Int) {
        let (_, floor) = try HostileMeasure.peakRSS(sandbox.overland, ["--help"])
        return (floor, min(floor + (40 << 20), 64 << 20))
    }

    @Test("overland-log on a journal whose newest segment is one record and 200 MiB of junk: the junk goes to damaged/ in bounded memory")
    func loggerRecoversHugeTail() throws {
        let (sandbox, end) = try Self.journal()
        let path = Self.segmentPath(sandbox, end)
        try Self.writeSegment(path, [try Self.member(sandbox, end), nil])
        let (floor, bound) = try Self.bound(sandbox)
        let input = Array((20..<25).map { HostileNumbersLogTests.epoch($0) }.joined().utf8)
        let (result, peak) = try HostileMeasure.peakRSS(sandbox.logger, ["--journal", sandbox.journal, "--commit-interval", "0"],
                                                       stdin: input)
        result.expectExit(0)
        #expect(peak > 0 && peak < bound, "overland-log: peak RSS \(peak >> 20) MiB, floor \(floor >> 20) MiB")
        print("peak RSS, overland-log on a 200 MiB torn tail: \(peak >> 20) MiB (floor \(floor >> 20) MiB)")
        let damaged = Self.damagedFiles(sandbox)
        #expect(damaged.count == 1 && damaged.first?.size == Self.junkBytes, "\(damaged)")
        let verification = try Journal(path: sandbox.journal).verify()
        #expect(verification.damage == 0 && !verification.unfinishedTail)
        #expect(verification.intactRecords == end + 1 + 5, "the 20 records, the one before the junk and the 5 logged")
    }

    @Test("journal seal on a newest segment with 200 MiB of junk between two records: both kept, the original in damaged/, bounded memory")
    func sealSetsAsideHugeSegment() throws {
        let (sandbox, end) = try Self.journal()
        let path = Self.segmentPath(sandbox, end)
        try Self.writeSegment(path, [try Self.member(sandbox, end), nil, try Self.member(sandbox, end + 1)])
        let (floor, bound) = try Self.bound(sandbox)
        let (result, peak) = try HostileMeasure.peakRSS(sandbox.overland, ["journal", "seal", "--journal", sandbox.journal])
        result.expectExit(0)
        #expect(peak > 0 && peak < bound, "journal seal: peak RSS \(peak >> 20) MiB, floor \(floor >> 20) MiB")
        print("peak RSS, journal seal of a 200 MiB damaged segment: \(peak >> 20) MiB (floor \(floor >> 20) MiB)")
        let damaged = Self.damagedFiles(sandbox)
        #expect(damaged.count == 1 && (damaged.first?.size ?? 0) > Self.junkBytes, "\(damaged)")
        let journal = try Journal(path: sandbox.journal)
        let verification = try journal.verify()
        #expect(verification.damage == 0 && !verification.unfinishedTail)
        #expect(verification.intactRecords == end + 2)
        #expect(try journal.isSealed(SegmentName(firstSequence: end)))
        #expect(FileSystemSize.of(path) < 1 << 20)
    }

    @Test("journal repair of a sealed segment with 200 MiB of junk between two records: both kept, the original in damaged/, bounded memory")
    func repairSetsAsideHugeSegment() throws {
        let (sandbox, end) = try Self.journal()
        try Self.writeSegment(Self.segmentPath(sandbox, end), [
            try Self.member(sandbox, end), nil, try Self.member(sandbox, end + 1), try Self.seal(sandbox, first: end, count: 2),
        ])
        // A newer segment: the damaged one is not the newest, which only repair looks into.
        try HostileJournalTests.write(try Self.member(sandbox, end + 2), to: Self.segmentPath(sandbox, end + 2))
        let (floor, bound) = try Self.bound(sandbox)
        let (result, peak) = try HostileMeasure.peakRSS(sandbox.overland, ["journal", "repair", "--journal", sandbox.journal])
        result.expectExit(0)
        #expect(peak > 0 && peak < bound, "journal repair: peak RSS \(peak >> 20) MiB, floor \(floor >> 20) MiB")
        print("peak RSS, journal repair of a 200 MiB damaged sealed segment: \(peak >> 20) MiB (floor \(floor >> 20) MiB)")
        let damaged = Self.damagedFiles(sandbox)
        #expect(damaged.count == 1 && (damaged.first?.size ?? 0) > Self.junkBytes, "\(damaged)")
        let verification = try Journal(path: sandbox.journal).verify()
        #expect(verification.damage == 0)
        #expect(verification.intactRecords == end + 3)
        #expect(FileSystemSize.of(Self.segmentPath(sandbox, end)) < 1 << 20)
    }

    @Test("journal move with a 200 MiB damaged sealed segment unsent: it stops there, moves what comes before, in bounded memory")
    func moveStopsAtHugeDamagedSegment() throws {
        let (sandbox, end) = try Self.journal()
        try Self.writeSegment(Self.segmentPath(sandbox, end), [
            try Self.member(sandbox, end), nil, try Self.member(sandbox, end + 1), try Self.seal(sandbox, first: end, count: 2),
        ])
        let target = sandbox.directory.appending("target")
        let (floor, bound) = try Self.bound(sandbox)
        let (result, peak) = try HostileMeasure.peakRSS(sandbox.overland, ["journal", "move", "--journal", sandbox.journal, "--to", target])
        #expect(result.exitStatus != nil && result.signal == nil, "\(result)")
        #expect(result.stderrText.contains("is damaged") || result.stdoutText.contains("is damaged"), "\(result)")
        #expect(peak > 0 && peak < bound, "journal move: peak RSS \(peak >> 20) MiB, floor \(floor >> 20) MiB")
        print("peak RSS, journal move stopping at a 200 MiB damaged segment: \(peak >> 20) MiB (floor \(floor >> 20) MiB)")
        #expect(try Journal(path: target).verify().intactRecords == end, "the sealed segment before it moved")
        #expect(FileSystemSize.of(Self.segmentPath(sandbox, end)) > Self.junkBytes, "the damaged segment stays in the source")
    }

    @Test("journal move of a 200 MiB sealed intact segment: every record moves, in bounded memory")
    func moveHugeIntactSegment() throws {
        let (sandbox, end) = try Self.journal()
        // One payload of real records just under the 1 MiB member limit, as stored deflate
        // blocks (no compression: the member is as large as its records), framed 200 times.
        var payload: [UInt8] = []
        var count: UInt32 = 0
        while true {
            let line = Array((MoveRecords.line(Int(count)) + "\n").utf8)
            guard payload.count + line.count <= 1_000_000 else { break }
            payload += line
            count += 1
        }
        var stored: [UInt8] = []
        var start = 0
        while start < payload.count {
            let length = min(65_535, payload.count - start)
            stored.append(start + length == payload.count ? 1 : 0)
            stored += HostileJournalTests.littleEndian(UInt16(length)) + HostileJournalTests.littleEndian(~UInt16(length))
            stored += payload[start..<(start + length)]
            start += length
        }
        let crc = HostileJournalTests.crc32(payload)
        let id = try HostileJournalTests.journalID(sandbox.journal)
        let members = 200
        let path = Self.segmentPath(sandbox, end)
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        for index in 0..<members {
            try handle.write(contentsOf: HostileJournalTests.member(firstSequence: end + UInt64(index) * UInt64(count), count: count,
                                                                    journalID: id, deflate: stored, crc: crc, isize: UInt32(payload.count)))
        }
        try handle.write(contentsOf: try Self.seal(sandbox, first: end, count: UInt32(members) * count))
        try handle.close()
        #expect(FileSystemSize.of(path) > 190 << 20)
        let moved = UInt64(members) * UInt64(count)

        let target = sandbox.directory.appending("target")
        let (floor, bound) = try Self.bound(sandbox)
        let (result, peak) = try HostileMeasure.peakRSS(sandbox.overland, ["journal", "move", "--journal", sandbox.journal, "--to", target],
                                                       timeout: .seconds(600))
        result.expectExit(0)
        #expect(peak > 0 && peak < bound, "journal move: peak RSS \(peak >> 20) MiB, floor \(floor >> 20) MiB")
        print("peak RSS, journal move of a 200 MiB sealed segment: \(peak >> 20) MiB (floor \(floor >> 20) MiB)")
        let verification = try Journal(path: target).verify()
        #expect(verification.damage == 0 && verification.intactRecords == end + moved, "\(verification.intactRecords)")
        #expect(FileSystemSize.of(path) == -1, "the source segment is gone once moved")
        #expect(try Journal(path: sandbox.journal).cursor() == end + moved)
    }
}

enum FileSystemSize {
    static func of(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : -1
    }
}
