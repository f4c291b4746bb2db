/// The two inputs the logger reads: raw NMEA 0183 from a receiver or a capture, or the
/// JSON reports of gpsd (`gpspipe -w`).
public enum InputFormat: Sendable, Equatable, Hashable, CaseIterable {
    /// NMEA 0183 sentences, possibly with binary frames and `#` header lines between them.
    case nmea
    /// gpsd JSON reports, one object per line.
    case gpsdJSON

    /// Decides the format from the first bytes of a stream: the first line that is not
    /// blank and does not start with `#` is gpsd JSON if its first non-blank byte is `{`,
    /// and NMEA otherwise (including binary data). A UTF-8 byte-order mark is skipped.
    ///
    /// Returns nil while `prefix` holds no such byte yet; with `isComplete` (the stream
    /// has ended) such a stream is NMEA.
    public static func detect(_ prefix: some Collection<UInt8>, isComplete: Bool = false) -> InputFormat? {
        let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
        var bytes = prefix[...]
        if bytes.starts(with: byteOrderMark) {
            bytes = bytes.dropFirst(byteOrderMark.count)
        } else if !bytes.isEmpty && byteOrderMark.starts(with: bytes) {
            return isComplete ? .nmea : nil
        }
        var inComment = false
        for c in bytes {
            if c == ASCII.lf || c == ASCII.cr {
                inComment = false
            } else if inComment || c == ASCII.space || c == ASCII.tab {
                continue
            } else if c == ASCII.hash {
                inComment = true
            } else {
                return c == ASCII.openBrace ? .gpsdJSON : .nmea
            }
        }
        return isComplete ? .nmea : nil
    }
}
