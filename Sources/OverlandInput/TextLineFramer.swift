/// Splits a byte stream into text lines for line-oriented JSON (gpsd's `gpspipe -w`
/// output): a push decoder like ``NMEALineFramer`` without the NMEA rules.
///
/// Lines end at LF, CR LF or CR; empty lines are skipped, `#` lines are counted as comments
/// and skipped. A line longer than ``maximumLineLength`` bytes is discarded up to its
/// terminator and counted. The default of 64 KiB is several times gpsd's largest report
/// (a SKY report with every satellite listed).
public struct TextLineFramer: Sendable {
    /// The default maximum length of a line in bytes, terminator excluded.
    public static let defaultMaximumLineLength = 65_536

    /// The longest line accepted, in bytes.
    public let maximumLineLength: Int
    /// Lines, comment lines, overlong lines and the bytes they cost.
    public private(set) var statistics = DecoderStatistics()

    private var buffer = FramingBuffer()
    private var scanIndex = 0
    private var lineStart = 0
    private var discarding = false

    /// Creates a framer that discards lines longer than `maximumLineLength` bytes.
    public init(maximumLineLength: Int = TextLineFramer.defaultMaximumLineLength) {
        self.maximumLineLength = max(16, maximumLineLength)
    }

    /// Adds bytes read from the stream; any chunk size.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        let keep = discarding ? scanIndex : lineStart
        buffer.append(bytes, discarding: keep)
        scanIndex -= keep
        lineStart -= min(lineStart, keep)
    }

    /// Returns the next complete line (without its terminator), or nil when more input is needed.
    public mutating func nextLine() -> ArraySlice<UInt8>? {
        while scanIndex < buffer.count {
            let c = buffer[scanIndex]
            if c == ASCII.lf || c == ASCII.cr {
                let line = lineStart..<scanIndex
                scanIndex += 1
                lineStart = scanIndex
                if discarding {
                    discarding = false
                    continue
                }
                if let accepted = accept(line) { return accepted }
                continue
            }
            if discarding {
                statistics.skippedBytes += 1
                lineStart = scanIndex + 1
            } else if scanIndex - lineStart >= maximumLineLength {
                statistics.lines += 1
                statistics.overlongLines += 1
                statistics.skippedBytes += scanIndex - lineStart + 1
                discarding = true
                lineStart = scanIndex + 1
            }
            scanIndex += 1
        }
        return nil
    }

    /// Ends the input: returns a last line that had no terminator, and resets the framer
    /// for a new stream (statistics kept). Call it after ``nextLine()`` has returned nil.
    public mutating func finish() -> ArraySlice<UInt8>? {
        var tail: ArraySlice<UInt8>? = nil
        if !discarding && lineStart < buffer.count {
            tail = accept(lineStart..<buffer.count)
        }
        buffer.reset()
        scanIndex = 0
        lineStart = 0
        discarding = false
        return tail
    }

    private mutating func accept(_ line: Range<Int>) -> ArraySlice<UInt8>? {
        guard let first = buffer.bytes[line].firstIndex(where: { $0 != ASCII.space && $0 != ASCII.tab })
        else { return nil }
        statistics.lines += 1
        if buffer[first] == ASCII.hash {
            statistics.commentLines += 1
            return nil
        }
        return buffer[line]
    }
}
