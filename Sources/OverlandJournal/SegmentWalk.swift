#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Walks a segment's member headers without inflating them (journal-format.md section 8:
/// framing), yielding its valid record members and its damaged ranges in file order, one
/// at a time: whatever the number of members, the walk holds none of them.
/// `SegmentLayout` is what a whole walk sums up to.
struct SegmentWalk<Bytes: SegmentBytes>: Sequence, IteratorProtocol {
    enum Step {
        /// A valid record member, sequence numbers increasing.
        case member(SegmentLayout.Located)
        /// A byte range holding no valid member, with a valid member after it.
        case damage(SegmentLayout.Damage)
        /// Invalid bytes at the end with no valid member after them (always the last step).
        case tail(SegmentLayout.Damage)

        var member: SegmentLayout.Located? {
            if case .member(let member) = self { return member }
            return nil
        }
    }

    let bytes: Bytes
    let name: SegmentName
    let journalID: JournalID
    private var offset = 0
    private var nextAllowed: UInt64
    /// Records in the members walked so far.
    private(set) var recordCount = 0
    /// The seal member framed as this segment's exact seal and its last member, once walked.
    private(set) var framedSeal: MemberHeader?
    /// Whether a damaged range (or the tail) was walked.
    private(set) var sawDamage = false
    /// Where the valid part walked so far ends (the end of the last valid member).
    private(set) var validEnd = 0

    init(_ bytes: Bytes, name: SegmentName, journalID: JournalID) {
        self.bytes = bytes
        self.name = name
        self.journalID = journalID
        nextAllowed = name.firstSequence
    }

    mutating func next() -> Step? {
        let count = bytes.count
        while offset < count {
            let problem: MemberDamage
            switch bytes.withBytes(offset..<Swift.min(count, offset + Member.headerSize), { Member.parseHeader($0) }) {
            case .success(let header):
                if offset + header.memberSize > count {
                    problem = .truncated
                } else if header.journalID != journalID {
                    problem = .corrupt("member of another journal (\(header.journalID))", .foreignMember)
                } else if header.kind == .seal {
                    // A seal is framed like any member: when it is not this segment's exact
                    // seal as its last member, its own bytes are damage and the walk goes on.
                    let start = offset
                    offset += header.memberSize
                    if let reason = Self.sealProblem(header, at: start, in: bytes, name: name, recordCount: recordCount) {
                        framedSeal = nil
                        sawDamage = true
                        return .damage(SegmentLayout.Damage(offset: start, length: header.memberSize, reason: reason, code: .badSeal))
                    }
                    framedSeal = header
                    validEnd = offset
                    continue
                } else if header.firstSequence < nextAllowed {
                    problem = .corrupt("member out of sequence (\(header.firstSequence) before \(nextAllowed))", .outOfSequence)
                } else {
                    let member = SegmentLayout.Located(header: header, offset: offset)
                    nextAllowed = header.endSequence
                    recordCount += header.recordCount
                    offset += header.memberSize
                    validEnd = offset
                    return .member(member)
                }
            case .failure(let damage):
                problem = damage
            }
            // Resynchronise at the next offset after this one where a valid header of this
            // journal starts, whose member lies inside the file.
            let resume = Self.nextHeader(in: bytes, after: offset, journalID: journalID)
            let end = resume ?? count
            var reason = problem.reason
            var code = problem.code
            if SegmentLayout.isZero(bytes, offset..<end) {
                reason = MemberDamage.zeroFilled.reason
                code = .zeroFilled
            }
            let range = SegmentLayout.Damage(offset: offset, length: end - offset, reason: reason, code: code)
            offset = end
            sawDamage = true
            return resume == nil ? .tail(range) : .damage(range)
        }
        return nil
    }

    /// After the whole walk: whether the last member is this segment's valid seal (rule 6
    /// of section 5), even if the segment has damage elsewhere.
    var endsWithSeal: Bool { framedSeal != nil }

    /// After the whole walk: the seal, when the segment is sealed and undamaged (a seal is
    /// only as good as the members it counts).
    var seal: MemberHeader? { sawDamage ? nil : framedSeal }

    /// Why a framed seal member at `offset` is not this segment's seal, or nil when it is:
    /// exactly 64 bytes (empty deflate data, CRC 0, ISIZE 0), the segment's first sequence
    /// number, the count of the records members framed before it, the file's last member.
    private static func sealProblem(_ header: MemberHeader, at offset: Int, in bytes: Bytes,
                                    name: SegmentName, recordCount: Int) -> String? {
        let sealSize = Member.headerSize + Member.emptyDeflate.count + Member.trailerSize
        guard header.memberSize == sealSize,
              bytes.withBytes((offset + Member.headerSize)..<(offset + sealSize), {
                  $0.elementsEqual(Member.emptyDeflate + [0, 0, 0, 0, 0, 0, 0, 0])
              })
        else { return "seal member is not the 64-byte empty seal" }
        guard header.firstSequence == name.firstSequence, header.recordCount == recordCount else {
            return "seal claims \(header.recordCount) records from \(header.firstSequence)"
        }
        guard offset + sealSize == bytes.count else { return "data after the seal" }
        return nil
    }

    /// The next offset after `start` where a valid header of this journal starts whose
    /// member lies inside the file; scanned a chunk at a time.
    private static func nextHeader(in bytes: Bytes, after start: Int, journalID: JournalID) -> Int? {
        let count = bytes.count
        var chunkStart = start + 1
        while chunkStart + Member.headerSize <= count {
            let chunkEnd = Swift.min(count - Member.headerSize + 1, chunkStart + SegmentLayout.scanChunk)
            // Candidates first (the magic), then each header read on its own: no nested reads.
            let candidates: [Int] = bytes.withBytes(chunkStart..<(chunkEnd + 3)) { chunk in
                var found: [Int] = []
                guard let base = chunk.baseAddress else { return found }
                var index = 0
                let scanned = Swift.min(chunkEnd - chunkStart, chunk.count)
                while index < scanned, let hit = memchr(base + index, 0x1f, scanned - index) {
                    index = base.distance(to: UnsafeRawPointer(hit))
                    if index + 3 < chunk.count, chunk[index + 1] == 0x8b, chunk[index + 2] == 0x08, chunk[index + 3] == 0x06 {
                        found.append(chunkStart + index)
                    }
                    index += 1
                }
                return found
            }
            for index in candidates {
                if case .success(let header) = bytes.withBytes(index..<(index + Member.headerSize), { Member.parseHeader($0) }),
                   header.journalID == journalID, index + header.memberSize <= count {
                    return index
                }
            }
            chunkStart = chunkEnd
        }
        return nil
    }
}

extension SegmentFile {
    /// The valid record members of this file, segment `name` of the journal `journalID`, in
    /// file order, walked one at a time. A read that fails ends the walk (as truncation):
    /// callers check `readError` (`readMember` throws it).
    func members(name: SegmentName, journalID: JournalID) -> some Sequence<SegmentLayout.Located> {
        SegmentWalk(self, name: name, journalID: journalID).lazy.compactMap(\.member)
    }
}
