/// A reader's progress record, `state/progress-NAME` (journal-format.md section 9): where
/// the reader is between two durable writes of its cursor. 76 bytes, overwritten in place
/// (same offset, same length: no rename, no metadata) after every acknowledgement and not
/// fsynced, so a torn or lost write is expected after a power cut; the CRC-32 tells it.
///
///     0   8  magic "olprog1\n"
///     8  16  journal id (the manifest's 16 bytes)
///     24  8  base: the `next` of the reader's durable cursor when this record was written (LE)
///     32  8  next: the first record not yet acknowledged (LE)
///     40 32  the reader's NAME in ASCII, NUL-padded
///     72  4  CRC-32 (gzip's) of bytes 0-71 (LE)
public struct ProgressRecord: Sendable, Equatable {
    public static let size = 76
    static let magic: [UInt8] = Array("olprog1\n".utf8)

    public var journalID: JournalID
    public var name: CursorName
    /// The durable cursor's `next` this record continues: valid only while it is still that.
    public var base: UInt64
    public var next: UInt64

    public init(journalID: JournalID, name: CursorName, base: UInt64, next: UInt64) {
        self.journalID = journalID
        self.name = name
        self.base = base
        self.next = next
    }

    /// The record's 76 bytes.
    public var encoded: [UInt8] {
        var bytes = Self.magic + journalID.bytes
        Self.append(base, to: &bytes)
        Self.append(next, to: &bytes)
        let nameBytes = Array(name.text.utf8)
        bytes += nameBytes + [UInt8](repeating: 0, count: CursorName.maxLength - nameBytes.count)
        let crc = Deflate.crc32(bytes)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: crc >> UInt32(shift))) }
        return bytes
    }

    /// The record in `bytes`, or nil when they are not one whole record (a wrong length,
    /// magic, name field or CRC-32: torn, zeros, or not a progress record at all).
    public init?(decoding bytes: [UInt8]) {
        guard bytes.count == Self.size, Array(bytes[0..<8]) == Self.magic,
              Self.integer(bytes, at: 72, count: 4) == UInt64(Deflate.crc32(Array(bytes[0..<72]))),
              let id = JournalID(bytes: Array(bytes[8..<24])) else { return nil }
        let nameField = bytes[40..<72]
        let nameBytes = nameField.prefix { $0 != 0 }
        guard nameField.dropFirst(nameBytes.count).allSatisfy({ $0 == 0 }),
              let name = CursorName(String(decoding: nameBytes, as: UTF8.self)) else { return nil }
        self.init(journalID: id, name: name, base: Self.integer(bytes, at: 24, count: 8), next: Self.integer(bytes, at: 32, count: 8))
    }

    private static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    private static func integer(_ bytes: [UInt8], at offset: Int, count: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in (offset..<(offset + count)).reversed() { value = value << 8 | UInt64(bytes[index]) }
        return value
    }
}
