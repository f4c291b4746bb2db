/// The range of sequence numbers (journal-format.md section 3), in one place.
///
/// A record numbered N is acknowledged by a cursor of N + 1, and a cursor is a JSON number,
/// counted exactly only up to 2^53. So records are numbered 0 ... 2^53 - 1, and a cursor, a
/// segment's end, a member's first number and a segment name are at most 2^53. Every
/// reader and writer of these numbers (cursor, move intent, trip, registry of journals,
/// appender, reader) uses this limit.
public enum SequenceNumber {
    /// One past the largest record number: 2^53 (9,007,199,254,740,992), also the largest
    /// cursor.
    public static let limit: UInt64 = 1 << 53

    /// Whether `value`, read from a JSON number, is a cursor or an end: an integer from 0 to `limit`.
    public static func isValidEnd(_ value: Double) -> Bool {
        value >= 0 && value <= Double(limit) && value == value.rounded()
    }
}
