import OverlandJSON

/// Splits a byte stream into NMEA 0183 sentence candidates: a push decoder.
///
/// Feed it chunks of any size with ``append(_:)``, then call ``nextLine()`` until it returns
/// nil ("need more"); at end of input call ``finish()`` for a last sentence that had no line
/// terminator. The chunking never changes the result.
///
/// A sentence candidate runs from a `$` or `!` to the byte before the next CR or LF (CR LF,
/// LF and CR-only endings all work; empty lines are skipped). Everything else costs only
/// itself and is counted in ``statistics``:
/// - Lines starting with `#` (capture headers) are skipped as comments.
/// - Bytes outside a sentence (u-blox UBX and RTCM3 frames between sentences, NULs, text that
///   is not NMEA, invalid UTF-8) are skipped until the next `$`, `!` or line end.
/// - A sentence interrupted by a byte that cannot occur in NMEA (a control byte other than
///   CR and LF, or a byte above 0x7E) or by another `$` is kept if it already ends in a
///   complete `*hh` checksum (some receivers put binary frames straight after one), and
///   otherwise discarded as broken; framing resumes at the `$`, or at the next `$`, `!` or
///   line end.
/// - A candidate shorter than six bytes (a `$` or `!` inside binary data, just before a
///   line end) is discarded as broken.
/// - A line longer than ``maximumLineLength`` bytes is discarded and counted; framing
///   resumes at the next `$`, `!` or line end.
///
/// The default maximum is 1024 bytes. NMEA 0183 allows 82 characters per sentence, but
/// real receivers exceed that (Trimble RTK GGA with 8-decimal minutes, NMEA 4.11 GSV and
/// GSA with signal and system ids, proprietary `$P...` sentences of 100 to 300 bytes);
/// 1024 leaves ample room while bounding memory and discarding runaway binary data quickly.
/// The framer buffers at most one partial sentence.
public struct NMEALineFramer: Sendable {
    /// The default maximum length of a sentence in bytes, terminator excluded.
    public static let defaultMaximumLineLength = 1024

    /// The longest sentence accepted, in bytes from `$` to the byte before the terminator.
    public let maximumLineLength: Int
    /// What the framer saw and skipped so far (lines, comments, overlong and broken lines,
    /// skipped bytes, sentence candidates).
    public private(set) var statistics = DecoderStatistics()

    private var buffer = FramingBuffer()
    private var scanIndex = 0
    private var sentenceStart = 0
    private var state = LineScan.State.lineStart

    /// Creates a framer that discards lines longer than `maximumLineLength` bytes (at least 16).
    public init(maximumLineLength: Int = NMEALineFramer.defaultMaximumLineLength) {
        self.maximumLineLength = max(16, maximumLineLength)
    }

    /// Adds bytes read from the stream; any chunk size, including one byte or none.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        let keep = state == .sentence ? sentenceStart : scanIndex
        buffer.append(bytes, discarding: keep)
        scanIndex -= keep
        if state == .sentence { sentenceStart -= keep }
    }

    /// Returns the next complete sentence candidate, from its `$` or `!` to the byte before
    /// its terminator, or nil when more input is needed.
    ///
    /// The slice shares the framer's buffer; let go of it before the next ``append(_:)`` to
    /// avoid a copy.
    public mutating func nextLine() -> ArraySlice<UInt8>? {
        let count = buffer.count
        if scanIndex >= count { return nil }
        let maximum = maximumLineLength
        let (found, scan) = buffer.bytes.withUnsafeBufferPointer { p -> (Range<Int>?, LineScan) in
            var scan = LineScan(p: p, count: count, maximum: maximum, i: scanIndex, state: state, start: sentenceStart)
            return (scan.run(), scan)
        }
        scanIndex = scan.i
        state = scan.state
        sentenceStart = scan.start
        scan.stats.add(to: &statistics)
        return found.map { buffer[$0] }
    }

    /// Ends the input: returns the last sentence candidate if the stream ended inside one
    /// (no final line terminator), and resets the framer for a new stream (statistics kept).
    ///
    /// Call it after ``nextLine()`` has returned nil.
    public mutating func finish() -> ArraySlice<UInt8>? {
        var tail: ArraySlice<UInt8>? = nil
        if state == .sentence && scanIndex >= buffer.count {
            if buffer.count - sentenceStart >= NMEALineFramer.minimumLineLength {
                statistics.sentences += 1
                tail = buffer[sentenceStart..<buffer.count]
            } else {
                statistics.brokenLines += 1
                statistics.skippedBytes += buffer.count - sentenceStart
            }
        }
        buffer.reset()
        scanIndex = 0
        sentenceStart = 0
        state = .lineStart
        return tail
    }

    /// The shortest sentence candidate: `$GPGGA` (a `$` with a few bytes of binary data
    /// before a line end is a broken line, not a sentence).
    static let minimumLineLength = 6

    /// Whether any of the eight bytes in `word` is one that ends a sentence body: below
    /// 0x20 (CR, LF, other control bytes), 0x7F or above, or `$`. Never false when one is;
    /// may be true when none is (the caller then looks byte by byte).
    @inline(__always)
    static func mayEndBody(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ v: UInt64) -> UInt64 { (v &- ones) & ~v & highBits }
        let nonASCII = word & highBits
        let control = (word &- ones &* 0x20) & ~word & highBits // some byte below 0x20
        let delete = hasZeroByte(word ^ (ones &* 0x7F))
        let dollar = hasZeroByte(word ^ (ones &* UInt64(ASCII.dollar)))
        return nonASCII | control | delete | dollar != 0
    }

    /// Whether `line` ends in `*` and two hexadecimal digits.
    static func endsWithChecksum(_ p: UnsafeBufferPointer<UInt8>, _ line: Range<Int>) -> Bool {
        let end = line.upperBound
        return line.count >= minimumLineLength && p[end - 3] == ASCII.star && ASCIIHex.value(p[end - 2]) != nil
            && ASCIIHex.value(p[end - 1]) != nil
    }
}

/// One run of ``NMEALineFramer/nextLine()`` over the buffered bytes: a state machine with a
/// step per state, its counters kept in registers.
private struct LineScan {
    enum State: Sendable {
        case lineStart, junk, comment, sentence, overlong
    }

    /// What a sentence's step found.
    enum Step {
        case line(Range<Int>), needMore, next
    }

    let p: UnsafeBufferPointer<UInt8>
    let count: Int
    let maximum: Int
    var i: Int
    var state: State
    var start: Int
    var stats = ScanCounts()

    /// Scans to the next sentence candidate; nil when the bytes ran out first.
    @inline(__always)
    mutating func run() -> Range<Int>? {
        while i < count {
            let c = p[i]
            switch state {
            case .lineStart, .junk: outside(c)
            case .comment: comment(c)
            case .overlong: overlong(c)
            case .sentence:
                switch sentence() {
                case .line(let line): return line
                case .needMore: return nil
                case .next: continue
                }
            }
        }
        return nil
    }

    /// Between sentences: a `$` or `!` starts one, a line end ends the junk, `#` at a
    /// line's start a comment; anything else is skipped.
    @inline(__always)
    mutating func outside(_ c: UInt8) {
        if c == ASCII.dollar || c == ASCII.bang {
            startSentence()
        } else if c == ASCII.cr || c == ASCII.lf {
            state = .lineStart
        } else if c == ASCII.hash && state == .lineStart {
            stats.lines += 1
            stats.commentLines += 1
            state = .comment
        } else {
            if state == .lineStart { stats.lines += 1 }
            stats.skippedBytes += 1
            state = .junk
        }
        i += 1
    }

    @inline(__always)
    mutating func comment(_ c: UInt8) {
        if c == ASCII.cr || c == ASCII.lf {
            state = .lineStart
        } else if c < ASCII.space && c != ASCII.tab || c == 0x7F {
            // A control byte: binary data that happened to contain '#', not a comment
            // after all. (Bytes above 0x7F are UTF-8 text in headers.)
            stats.skippedBytes += 1
            state = .junk
        }
        i += 1
    }

    @inline(__always)
    mutating func overlong(_ c: UInt8) {
        if c == ASCII.dollar || c == ASCII.bang {
            startSentence()
        } else if c == ASCII.cr || c == ASCII.lf {
            state = .lineStart
        } else {
            stats.skippedBytes += 1
        }
        i += 1
    }

    @inline(__always)
    mutating func startSentence() {
        stats.lines += 1
        state = .sentence
        start = i
    }

    /// In a sentence: runs over its body, then decides by the byte that ended it.
    @inline(__always)
    mutating func sentence() -> Step {
        let j = bodyEnd()
        if j - start > maximum {
            stats.overlongLines += 1
            stats.skippedBytes += j - start
            state = .overlong
            i = j
            return .next
        }
        if j == count {
            i = j
            return .needMore
        }
        return ended(at: j)
    }

    /// The hot loop: the index of the first byte after `start` that cannot be in a
    /// sentence's body, at most one past the longest line.
    @inline(__always)
    func bodyEnd() -> Int {
        let limit = min(count, start + maximum + 1)
        var j = max(i, start + 1)
        // Eight bytes at a time while none of them can end the body; the byte loop below
        // finds which one does.
        if let base = p.baseAddress {
            let raw = UnsafeRawPointer(base)
            while j + 8 <= limit, !NMEALineFramer.mayEndBody(raw.loadUnaligned(fromByteOffset: j, as: UInt64.self)) {
                j += 8
            }
        }
        while j < limit {
            let b = p[j]
            if b >= 0x20 && b < 0x7F && b != ASCII.dollar { j += 1 } else { break }
        }
        return j
    }

    /// The body ended at `j`: a line end completes it (if long enough); another `$` or a
    /// byte that cannot occur in a sentence keeps it only with a complete checksum.
    @inline(__always)
    mutating func ended(at j: Int) -> Step {
        let b = p[j]
        let line = start..<j
        let kept: Bool
        if b == ASCII.cr || b == ASCII.lf {
            state = .lineStart
            i = j + 1
            kept = line.count >= NMEALineFramer.minimumLineLength
        } else if b == ASCII.dollar {
            stats.lines += 1
            start = j
            i = j + 1
            kept = NMEALineFramer.endsWithChecksum(p, line)
        } else {
            // Binary data, NUL, non-ASCII.
            stats.skippedBytes += 1
            state = .junk
            i = j + 1
            kept = NMEALineFramer.endsWithChecksum(p, line)
        }
        if kept {
            stats.sentences += 1
            return .line(line)
        }
        stats.brokenLines += 1
        stats.skippedBytes += line.count
        return .next
    }
}

/// The counters ``NMEALineFramer/nextLine()`` touches, kept in registers while it scans:
/// copying the whole ``DecoderStatistics`` in and out for every line cost more than the scan.
private struct ScanCounts {
    var lines = 0
    var commentLines = 0
    var sentences = 0
    var overlongLines = 0
    var brokenLines = 0
    var skippedBytes = 0

    func add(to statistics: inout DecoderStatistics) {
        statistics.lines += lines
        statistics.commentLines += commentLines
        statistics.sentences += sentences
        statistics.overlongLines += overlongLines
        statistics.brokenLines += brokenLines
        statistics.skippedBytes += skippedBytes
    }
}
