/// The two inputs the logger reads: raw NMEA 0183 from a receiver or a capture, or the
/// JSON reports of gpsd (`gpspipe -w`).
public enum InputFormat: Sendable, Equatable, Hashable, CaseIterable {
    /// NMEA 0183 sentences, possibly with binary frames and `#` header lines between them.
    case nmea
    /// gpsd JSON reports, one object per line.
    case gpsdJSON

    /// Decides the format from the first bytes of a stream: the first line that is not
    /// blank, does not start with `#` and is not part of gpsd's greeting is gpsd JSON if its
    /// first non-blank byte is `{`, and NMEA otherwise (including binary data). A UTF-8
    /// byte-order mark is skipped. gpsd's greeting (its VERSION, DEVICES, DEVICE and WATCH
    /// reports) opens `gpspipe -r` output as well as `gpspipe -w`, so it decides nothing.
    ///
    /// Returns nil while `prefix` holds no deciding line yet; with `isComplete` (the stream
    /// has ended) such a stream is NMEA.
    public static func detect(_ prefix: some Collection<UInt8>, isComplete: Bool = false) -> InputFormat? {
        let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
        var bytes = Array(prefix)[...]
        if bytes.starts(with: byteOrderMark) {
            bytes = bytes.dropFirst(byteOrderMark.count)
        } else if !bytes.isEmpty && byteOrderMark.starts(with: bytes) {
            return isComplete ? .nmea : nil
        }
        while !bytes.isEmpty {
            let end = bytes.firstIndex { $0 == ASCII.lf || $0 == ASCII.cr }
            let line = bytes[..<(end ?? bytes.endIndex)].drop { $0 == ASCII.space || $0 == ASCII.tab }
            if let first = line.first, first != ASCII.hash {
                let isGreeting = greetings.contains { line.starts(with: $0) }
                let mayBecomeGreeting = end == nil && greetings.contains { $0.starts(with: line) }
                if !isGreeting {
                    if mayBecomeGreeting && !isComplete { return nil }
                    return first == ASCII.openBrace ? .gpsdJSON : .nmea
                }
            }
            guard let end else { break }
            bytes = bytes[(end + 1)...]
        }
        return isComplete ? .nmea : nil
    }

    /// The starts of gpsd's greeting lines.
    private static let greetings = ["VERSION", "DEVICES", "DEVICE", "WATCH"].map { Array("{\"class\":\"\($0)\"".utf8) }
}
