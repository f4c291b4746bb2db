/// Why a byte range of a segment holds no record: the fixed list of reason codes of
/// journal-format.md section 8, shared by `verify --json` and every conforming reader.
public enum DamageCode: String, Sendable, Equatable, CaseIterable {
    /// Every byte of the range is zero (a preallocated or torn tail, as FAT leaves it).
    case zeroFilled = "zero-filled"
    /// Fewer than 54 bytes left, or a valid header whose member runs past the end of the file.
    case truncated = "truncated"
    /// No valid member header where one should start (magic, flags, subfield, version,
    /// kind, reserved bytes, header CRC, size or sequence range).
    case badHeader = "bad-header"
    /// A valid header carrying another journal's id.
    case foreignMember = "foreign-member"
    /// A records member whose first sequence number is below the end of the previous one,
    /// or below the segment's name.
    case outOfSequence = "out-of-sequence"
    /// A framed member whose deflate data, CRC-32 or ISIZE does not check.
    case badData = "bad-data"
    /// A member whose data inflates but is not `record count` valid record lines.
    case badRecord = "bad-record"
    /// A seal member that is not the exact 64-byte seal of this segment as its last member.
    case badSeal = "bad-seal"
}
