/// One gzip member (RFC 1952) of a segment, with the journal's fields in its header.
///
/// Layout (all integers little-endian), 54 header bytes, then raw deflate, then 8 bytes:
///
///     0   1f 8b 08 06          gzip magic, deflate, flags FEXTRA|FHCRC
///     4   u32 mtime            Unix seconds when the member was written
///     8   00 ff                XFL 0, OS 255 (unknown: nothing about the host)
///     10  u16 xlen = 40
///     12  'O' 'J' u16 36       the journal's subfield
///     16  u8 version = 1
///     17  u8 kind              1 records, 2 seal
///     18  u16 reserved = 0
///     20  u32 member size      bytes from offset 0 to the end of ISIZE
///     24  u64 first sequence   of the member's first record (seal: of the segment's first)
///     32  u32 record count     lines in this member (seal: records in the whole segment)
///     36  16 bytes             journal id
///     52  u16 header crc       low 16 bits of the CRC-32 of bytes 0..<52
///     54  ...                  deflate data
///     -8  u32 crc32, u32 isize of the uncompressed lines
struct MemberHeader: Equatable, Sendable {
    enum Kind: UInt8, Sendable {
        case records = 1
        case seal = 2
    }

    var kind: Kind
    var writtenAt: UInt32
    var memberSize: Int
    var firstSequence: UInt64
    var recordCount: Int
    var journalID: JournalID

    /// Sequence number after this member's records.
    var endSequence: UInt64 { kind == .records ? firstSequence + UInt64(recordCount) : firstSequence }
}

enum Member {
    static let headerSize = 54
    static let trailerSize = 8
    static let formatVersion: UInt8 = 1
    /// An uncompressed member never exceeds this: a reader refuses more (gzip bombs).
    static let maxPayloadBytes = 1 << 20
    /// A compressed member never exceeds this.
    static let maxMemberBytes = 2 << 20
    /// The deflate stream of zero bytes, for seal members.
    static let emptyDeflate: [UInt8] = [0x03, 0x00]

    /// Builds a complete member around `payload` (newline-terminated lines).
    static func encode(kind: MemberHeader.Kind, payload: UnsafeRawBufferPointer, firstSequence: UInt64,
                       recordCount: Int, journalID: JournalID, writtenAt: UInt32, level: Int32) -> [UInt8] {
        let deflated = payload.isEmpty ? emptyDeflate : Deflate.compress(payload, level: level)
        let size = headerSize + deflated.count + trailerSize
        var member: [UInt8] = []
        member.reserveCapacity(size)
        member += [0x1f, 0x8b, 0x08, 0x06]
        member.appendLittleEndian(writtenAt)
        member += [0x00, 0xff]
        member.appendLittleEndian(UInt16(40))
        member += [UInt8(ascii: "O"), UInt8(ascii: "J")]
        member.appendLittleEndian(UInt16(36))
        member.append(formatVersion)
        member.append(kind.rawValue)
        member.appendLittleEndian(UInt16(0))
        member.appendLittleEndian(UInt32(size))
        member.appendLittleEndian(firstSequence)
        member.appendLittleEndian(UInt32(recordCount))
        member += journalID.bytes
        let headerCRC = member.withUnsafeBytes { Deflate.crc32($0) }
        member.appendLittleEndian(UInt16(truncatingIfNeeded: headerCRC))
        member += deflated
        member.appendLittleEndian(Deflate.crc32(payload))
        member.appendLittleEndian(UInt32(truncatingIfNeeded: payload.count))
        return member
    }

    static func encode(kind: MemberHeader.Kind, payload: [UInt8], firstSequence: UInt64, recordCount: Int,
                       journalID: JournalID, writtenAt: UInt32, level: Int32) -> [UInt8] {
        payload.withUnsafeBytes {
            encode(kind: kind, payload: $0, firstSequence: firstSequence, recordCount: recordCount,
                   journalID: journalID, writtenAt: writtenAt, level: level)
        }
    }

    /// Parses and checks the 54 header bytes; the reason names what is wrong.
    static func parseHeader(_ bytes: some Collection<UInt8>) -> Result<MemberHeader, MemberDamage> {
        let header = Array(bytes.prefix(headerSize))
        guard header.count == headerSize else { return .failure(.truncated) }
        guard header[0] == 0x1f, header[1] == 0x8b else {
            return .failure(header.allSatisfy { $0 == 0 } ? .zeroFilled : .corrupt("no gzip magic"))
        }
        guard header[2] == 0x08, header[3] == 0x06, header.readLittleEndian(UInt16.self, at: 10) == 40,
              header[12] == UInt8(ascii: "O"), header[13] == UInt8(ascii: "J"),
              header.readLittleEndian(UInt16.self, at: 14) == 36 else {
            return .failure(.corrupt("not a journal member header"))
        }
        let crc = header.withUnsafeBytes { Deflate.crc32(UnsafeRawBufferPointer(rebasing: $0[0..<52])) }
        guard header.readLittleEndian(UInt16.self, at: 52) == UInt16(truncatingIfNeeded: crc) else {
            return .failure(.corrupt("header checksum mismatch"))
        }
        guard header[16] == formatVersion else { return .failure(.corrupt("member format version \(header[16])")) }
        guard let kind = MemberHeader.Kind(rawValue: header[17]) else { return .failure(.corrupt("member kind \(header[17])")) }
        guard header[18] == 0, header[19] == 0 else { return .failure(.corrupt("reserved header bytes set")) }
        let size = Int(header.readLittleEndian(UInt32.self, at: 20))
        guard size >= headerSize + emptyDeflate.count + trailerSize, size <= maxMemberBytes else {
            return .failure(.corrupt("member size \(size) out of range"))
        }
        let count = Int(header.readLittleEndian(UInt32.self, at: 32))
        let first = header.readLittleEndian(UInt64.self, at: 24)
        guard first <= SegmentName.maxFirstSequence else { return .failure(.corrupt("sequence number out of range")) }
        if kind == .records && count == 0 { return .failure(.corrupt("member with no records")) }
        // A records member's records must all be numbered below 2^53 (rule 2). A seal's
        // count is checked against the segment by rule 6 (bad-seal), not here.
        guard kind == .seal || UInt64(count) <= SequenceNumber.limit - first else {
            return .failure(.corrupt("records numbered past the largest sequence number (2^53 - 1)"))
        }
        return .success(MemberHeader(
            kind: kind,
            writtenAt: header.readLittleEndian(UInt32.self, at: 4),
            memberSize: size,
            firstSequence: first,
            recordCount: count,
            journalID: JournalID(bytes: Array(header[36..<52]))!
        ))
    }

    /// The uncompressed size a whole member's trailer announces (ISIZE).
    static func payloadSize(_ member: UnsafeRawBufferPointer) -> Int {
        Int(member.loadUnaligned(fromByteOffset: member.count - 4, as: UInt32.self).littleEndian)
    }

    /// Inflates a whole member (header included in `member`) and checks the CRC, the size,
    /// the record count and, with `checkLines`, every line. Returns the newline-terminated
    /// lines.
    static func decodePayload(_ member: UnsafeRawBufferPointer, header: MemberHeader,
                              checkLines: Bool = true) -> Result<[UInt8], MemberDamage> {
        var payload: [UInt8] = []
        if let damage = decodePayload(member, header: header, checkLines: checkLines, into: &payload) { return .failure(damage) }
        return .success(payload)
    }

    /// `decodePayload(_:header:checkLines:)` into `payload`, reusing its storage when nothing
    /// else holds it (a reader going through a segment inflates member after member of the
    /// same size). Returns the damage, or nil when `payload` holds the lines.
    static func decodePayload(_ member: UnsafeRawBufferPointer, header: MemberHeader, checkLines: Bool = true,
                              into payload: inout [UInt8]) -> MemberDamage? {
        guard member.count == header.memberSize else { return .truncated }
        let trailer = UnsafeRawBufferPointer(rebasing: member[(member.count - trailerSize)...])
        let expectedCRC = trailer.loadUnaligned(fromByteOffset: 0, as: UInt32.self).littleEndian
        let expectedSize = Int(trailer.loadUnaligned(fromByteOffset: 4, as: UInt32.self).littleEndian)
        guard expectedSize <= maxPayloadBytes else { return .corrupt("member inflates to \(expectedSize) bytes, over the limit", .badData) }
        let deflated = UnsafeRawBufferPointer(rebasing: member[headerSize..<(member.count - trailerSize)])
        do {
            try Deflate.inflate(deflated, expectedSize: expectedSize, limit: maxPayloadBytes, into: &payload)
        } catch {
            switch error {
            case .corrupt(let reason): return .corrupt(reason, .badData)
            case .tooLarge: return .corrupt("member inflates past the limit", .badData)
            case .truncated: return .corrupt("deflate data ends early", .badData)
            }
        }
        guard Deflate.crc32(payload) == expectedCRC else { return .corrupt("data checksum mismatch", .badData) }
        switch header.kind {
        case .seal:
            return payload.isEmpty ? nil : .corrupt("seal member with data", .badSeal)
        case .records:
            if let reason = RecordLine.checkLines(payload, expectedCount: header.recordCount, checkJSON: checkLines) {
                return .corrupt(reason, .badRecord)
            }
            return nil
        }
    }
}

/// What is wrong with the bytes where a member should be.
enum MemberDamage: Error, Equatable, Sendable {
    /// The file ends inside the member (a torn write, or a write still in progress).
    case truncated
    /// Only zero bytes (a preallocated or torn tail, as FAT leaves it).
    case zeroFilled
    /// Anything else: why, and the reason code (journal-format.md section 8).
    case corrupt(String, DamageCode = .badHeader)

    var reason: String {
        switch self {
        case .truncated: return "file ends inside a member"
        case .zeroFilled: return "zero-filled bytes"
        case .corrupt(let reason, _): return reason
        }
    }

    /// The reason code; a range found to be all zeros is `zero-filled` whatever stopped
    /// the walk there (`SegmentLayout` decides that).
    var code: DamageCode {
        switch self {
        case .truncated: return .truncated
        case .zeroFilled: return .badHeader
        case .corrupt(_, let code): return code
        }
    }
}

extension Array where Element == UInt8 {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    func readLittleEndian<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) -> T {
        var value = T.zero
        for index in 0..<MemoryLayout<T>.size {
            value |= T(self[offset + index]) << (8 * index)
        }
        return value
    }
}
