import OverlandJSON

/// The NMEA 0183 checksum: the XOR of every byte between the `$` (or `!`) and the `*`,
/// written after the `*` as two hexadecimal digits of either case.
public enum NMEAChecksum {
    /// What a sentence's checksum field says about it.
    public enum Status: Sendable, Equatable {
        /// The sentence ends in `*hh` and `hh` matches.
        case valid
        /// The sentence has a `*` but no matching two-digit checksum after it.
        case invalid
        /// The sentence has no `*` at all.
        case missing
    }

    /// Checks the checksum of a sentence that starts with `$` or `!` (trailing spaces allowed).
    public static func verify(_ sentence: some Collection<UInt8>) -> Status {
        let status = sentence.withContiguousStorageIfAvailable { verify($0).status }
        return status ?? Array(sentence).withUnsafeBufferPointer { verify($0).status }
    }

    /// The checksum of `payload`, the bytes between the `$` and the `*`.
    public static func compute(_ payload: some Sequence<UInt8>) -> UInt8 {
        payload.reduce(0, ^)
    }

    /// Checks the checksum and finds where the payload ends: at the `*` when there is one,
    /// else after the last non-space byte.
    static func verify(_ p: UnsafeBufferPointer<UInt8>) -> (status: Status, payloadEnd: Int) {
        var end = p.count
        while end > 0 && (p[end - 1] == ASCII.space || p[end - 1] == ASCII.tab) { end -= 1 }
        if end >= 4 && p[end - 3] == ASCII.star, let high = ASCIIHex.value(p[end - 2]),
            let low = ASCIIHex.value(p[end - 1])
        {
            var sum: UInt8 = 0
            var i = 1
            while i < end - 3 {
                sum ^= p[i]
                i += 1
            }
            return (sum == high << 4 | low ? .valid : .invalid, end - 3)
        }
        var i = 1
        while i < end {
            if p[i] == ASCII.star { return (.invalid, i) }
            i += 1
        }
        return (.missing, end)
    }
}
