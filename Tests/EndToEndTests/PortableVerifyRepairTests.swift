import TestSupport
import Foundation
import Testing
import OverlandJSON
import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

/// `overland journal verify`, `repair` and `stats` on a journal that travelled badly: a bit
/// flipped in compressed data, a sealed segment cut short, a member of another journal
/// spliced in, a stray file, a zero-filled tail (journal-format.md sections 5, 8 and 11).
@Suite struct PortableVerifyRepairTests {
    /// One member as its header describes it (journal-format.md section 5), read without
    /// the library.
    struct Span {
        var offset: Int
        var size: Int
        var first: UInt64
        var count: Int
        var kind: UInt8
    }

    static func spans(_ bytes: [UInt8]) -> [Span] {
        func le(_ offset: Int, _ width: Int) -> UInt64 {
            (0..<width).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * $1) }
        }
        var result: [Span] = []
        var offset = 0
        while offset + 54 <= bytes.count {
            let size = Int(le(offset + 20, 4))
            guard size >= 64, offset + size <= bytes.count else { break }
            result.append(Span(offset: offset, size: size, first: le(offset + 24, 8), count: Int(le(offset + 32, 4)), kind: bytes[offset + 17]))
            offset += size
        }
        return result
    }

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
    static func write(_ bytes: [UInt8], _ path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

    @Test func verifyReportsEachDamageWhereItIsAndRepairKeepsEveryIntactRecord() throws {
        let sandbox = try MoveSandbox(prefix: "overland-verify")
        // Small members (a commit every 7 records, sealed at level 9 into one member per
        // segment would hide them): seal with members of 7 records by committing and
        // sealing through the library's default, then read the layout back.
        let lines = try MoveRecords.makeSource(at: sandbox.source, sealed: 5, perSegment: 40, active: 12, cursor: 0, pad: 300)
        let segments = sandbox.source + "/segments/"
        let names = try FileManager.default.contentsOfDirectory(atPath: segments).sorted()
        try #require(names.count == 6)
        var lost = Set<UInt64>()

        // 1. A bit flipped inside the compressed data of segment 1's first member.
        var first = try Self.bytes(segments + names[1])
        let flipped = try #require(Self.spans(first).first)
        try #require(flipped.offset + 54 + (flipped.size - 62) / 2 < first.count)
        first[flipped.offset + 54 + (flipped.size - 62) / 2] ^= 0x10
        try Self.write(first, segments + names[1])
        for sequence in flipped.first..<(flipped.first + UInt64(flipped.count)) { lost.insert(sequence) }

        // 2. Segment 3, sealed, cut in the middle of its last records member.
        let cut = try Self.bytes(segments + names[3])
        let cutSpans = Self.spans(cut).filter { $0.kind == 1 }
        let cutMember = try #require(cutSpans.last)
        try Self.write(Array(cut[..<(cutMember.offset + cutMember.size / 2)]), segments + names[3])
        for sequence in cutMember.first..<(cutMember.first + UInt64(cutMember.count)) { lost.insert(sequence) }

        // 3. A member of another journal spliced into segment 2 (its own records survive).
        let other = sandbox.directory.appending("other")
        try MoveRecords.makeSource(at: other, sealed: 1, perSegment: 3, active: 0, cursor: 0)
        let otherBytes = try Self.bytes(other + "/segments/" + (try #require(try FileManager.default.contentsOfDirectory(atPath: other + "/segments").sorted().first)))
        let foreign = try #require(Self.spans(otherBytes).first)
        var spliced = try Self.bytes(segments + names[2])
        spliced.insert(contentsOf: otherBytes[foreign.offset..<(foreign.offset + foreign.size)], at: 0)
        try Self.write(spliced, segments + names[2])

        // 4. A stray file, and 5. zeros after the active segment's last commit (what FAT
        // leaves after a power cut): neither is damage to records.
        try Self.write(Array("x".utf8), segments + "notes.txt")
        let active = try Self.bytes(segments + names[5])
        try Self.write(active + [UInt8](repeating: 0, count: 4096), segments + names[5])

        let verify = try sandbox.overland(["journal", "verify", "--journal", sandbox.source])
        verify.expectExit(65)
        let reports = verify.stderrLines
        #expect(reports.contains { $0.contains("segments/\(names[1]): \(flipped.size) damaged bytes at offset \(flipped.offset)") }, "\(reports)")
        #expect(reports.contains { $0.contains("segments/\(names[3]):") && $0.contains("at offset \(cutMember.offset)") }, "\(reports)")
        #expect(reports.contains { $0.contains("segments/\(names[2]): \(foreign.size) damaged bytes at offset 0") && $0.contains("another journal") }, "\(reports)")
        #expect(reports.contains { $0.contains("segments/notes.txt") && $0.contains("ignored") }, "\(reports)")
        #expect(!reports.contains { $0.contains(names[5]) }, "a zero-filled tail of the active segment is not damage: \(reports)")
        #expect(verify.stdoutText.contains("6 segments, \(lines.count - lost.count) intact records, 3 damaged ranges"), "\(verify.stdoutText)")
        #expect(verify.stdoutText.contains("unfinished write"), "\(verify.stdoutText)")

        let repair = try sandbox.overland(["journal", "repair", "--journal", sandbox.source])
        #expect(repair.succeeded, "\(repair)")
        // The cut segment is sealed as the appender opens (recovery), the other two by repair itself.
        #expect(repair.stdoutText.contains("2 segments rewritten") && repair.stderrText.contains("segments/\(names[3]): damaged segment set aside"), "\(repair)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: sandbox.source + "/damaged")
        for name in [names[1], names[2], names[3]] {
            #expect(kept.contains { $0.hasPrefix(name + "-") }, "the original of \(name) is not in damaged/: \(kept)")
        }
        let again = try sandbox.overland(["journal", "verify", "--journal", sandbox.source])
        #expect(again.succeeded, "after repair: \(again)")
        let view = try #require(try JournalView.read(sandbox.source))
        let expected = lines.enumerated().filter { !lost.contains(UInt64($0.offset)) }
        #expect(view.records.map(\.line) == expected.map(\.element))
        #expect(view.records.map(\.sequence) == expected.map { UInt64($0.offset) })

        // Damage never moves: a repaired journal moves whole, and the target verifies.
        let moved = try sandbox.move(["--seal"])
        #expect(moved.succeeded && moved.stdoutText.contains("\(expected.count) records"), "\(moved)")
        #expect(try sandbox.overland(["journal", "verify", "--journal", sandbox.target]).succeeded)
    }

    @Test func moveStopsBeforeADamagedSegmentAndSaysWhy() throws {
        let sandbox = try MoveSandbox(prefix: "overland-verify")
        let lines = try MoveRecords.makeSource(at: sandbox.source, sealed: 4, perSegment: 20, cursor: 0)
        let segments = sandbox.source + "/segments/"
        let names = try FileManager.default.contentsOfDirectory(atPath: segments).sorted()
        try #require(names.count > 2)
        var bytes = try Self.bytes(segments + names[2])
        try #require(bytes.count > 60)
        bytes[60] ^= 0x01
        try Self.write(bytes, segments + names[2])
        let moved = try sandbox.move()
        #expect(moved.succeeded, "\(moved)")
        #expect(moved.stdoutText.contains("moved 2 segments, 40 records"), "\(moved.stdoutText)")
        #expect(moved.stdoutText.contains("\(names[2]) is damaged"), "\(moved.stdoutText)")
        #expect(try JournalView.read(sandbox.target)?.unsent == Array(lines[0..<40]))
        #expect(try JournalView.read(sandbox.source)?.cursor == 40)
    }

    @Test func statsShowsPointsTimeSpanSentUnsentAndBytesPerPoint() throws {
        let sandbox = try MoveSandbox(prefix: "overland-verify")
        let lines = try MoveRecords.makeSource(at: sandbox.source, sealed: 3, perSegment: 20, active: 5, cursor: 27)
        let text = try sandbox.overland(["journal", "stats", "--journal", sandbox.source])
        #expect(text.succeeded, "\(text)")
        #expect(text.stdoutText.contains("records   65 (65 location points): 27 sent, 38 unsent"), "\(text.stdoutText)")
        #expect(text.stdoutText.contains("from      \(ISO8601UTC.string(from: MoveRecords.t0))"), "\(text.stdoutText)")
        #expect(text.stdoutText.contains("to        \(ISO8601UTC.string(from: MoveRecords.t0 + 64))"), "\(text.stdoutText)")
        #expect(text.stdoutText.contains("per point"), "\(text.stdoutText)")
        let json = try sandbox.overland(["journal", "stats", "--journal", sandbox.source, "--json"])
        let object = try #require(try JSONScan.object(json.stdout))
        #expect(object["records"] as? Int == lines.count)
        #expect(object["sent"] as? Int == 27)
        #expect(object["unsent"] as? Int == 38)
        #expect(object["segments"] as? Int == 4)
        #expect(object["first"] as? String == ISO8601UTC.string(from: MoveRecords.t0))
    }
}
