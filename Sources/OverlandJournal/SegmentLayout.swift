/// The structure of one segment file, found by walking its member headers without
/// inflating them: where each member is, where damage is, whether it is sealed.
struct SegmentLayout: Sendable {
    struct Located: Sendable {
        var header: MemberHeader
        var offset: Int
    }

    /// A byte range that holds no valid member.
    struct Damage: Sendable, Equatable {
        var offset: Int
        var length: Int
        var reason: String
    }

    /// Valid record members, in file order, sequence numbers increasing.
    var members: [Located] = []
    /// The seal member, when the segment is sealed.
    var seal: MemberHeader?
    /// Damaged ranges before the last valid member.
    var damage: [Damage] = []
    /// Invalid bytes at the end with no valid member after them: a torn or in-progress
    /// write in an active segment, damage in a sealed one.
    var tail: Damage?
    /// Where the valid part ends (the end of the last valid member).
    var validEnd = 0

    /// Sequence number after the last valid record.
    var endSequence: UInt64? { members.last?.header.endSequence }

    var recordCount: Int { members.reduce(0) { $0 + $1.header.recordCount } }

    var isDamaged: Bool { !damage.isEmpty || tail != nil }

    /// Walks `bytes`, a whole segment file of the journal `journalID` named `name`.
    init(walking bytes: UnsafeRawBufferPointer, name: SegmentName, journalID: JournalID) {
        var offset = 0
        var nextAllowed = name.firstSequence
        while offset < bytes.count {
            let problem: MemberDamage
            switch Member.parseHeader(UnsafeRawBufferPointer(rebasing: bytes[offset..<min(bytes.count, offset + Member.headerSize)])) {
            case .success(let header):
                if offset + header.memberSize > bytes.count {
                    problem = .truncated
                } else if header.journalID != journalID {
                    problem = .corrupt("member of another journal (\(header.journalID))")
                } else if seal != nil {
                    problem = .corrupt("data after the seal")
                } else if header.kind == .seal {
                    if header.firstSequence != name.firstSequence || header.recordCount != recordCount {
                        problem = .corrupt("seal claims \(header.recordCount) records from \(header.firstSequence)")
                    } else {
                        seal = header
                        offset += header.memberSize
                        validEnd = offset
                        continue
                    }
                } else if header.firstSequence < nextAllowed {
                    problem = .corrupt("member out of sequence (\(header.firstSequence) before \(nextAllowed))")
                } else {
                    members.append(Located(header: header, offset: offset))
                    nextAllowed = header.endSequence
                    offset += header.memberSize
                    validEnd = offset
                    continue
                }
            case .failure(let damage):
                problem = damage
            }
            // Resynchronise at the next offset where a valid header of this journal starts.
            let resume = Self.nextHeader(in: bytes, after: offset, journalID: journalID)
            let end = resume ?? bytes.count
            var reason = problem.reason
            if resume == nil && problem != .truncated && bytes[offset..<end].allSatisfy({ $0 == 0 }) {
                reason = MemberDamage.zeroFilled.reason
            }
            let range = Damage(offset: offset, length: end - offset, reason: reason)
            if resume == nil { tail = range } else { damage.append(range) }
            offset = end
        }
        if seal != nil, !damage.isEmpty || tail != nil {
            // A seal is only as good as the members it counts.
            seal = nil
        }
    }

    private static func nextHeader(in bytes: UnsafeRawBufferPointer, after start: Int, journalID: JournalID) -> Int? {
        var index = start + 1
        while index + Member.headerSize <= bytes.count {
            guard let found = bytes[index...].firstIndex(of: 0x1f) else { return nil }
            index = found
            if index + Member.headerSize > bytes.count { return nil }
            if bytes[index + 1] == 0x8b, bytes[index + 2] == 0x08, bytes[index + 3] == 0x06,
               case .success(let header) = Member.parseHeader(UnsafeRawBufferPointer(rebasing: bytes[index..<(index + Member.headerSize)])),
               header.journalID == journalID, index + header.memberSize <= bytes.count {
                return index
            }
            index += 1
        }
        return nil
    }
}
