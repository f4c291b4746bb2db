import OverlandJSON

/// Counters of what a decoder read, accepted, skipped and emitted.
///
/// Each stage fills its own counters: the framers count lines and skipped bytes, the
/// sentence decoder counts checksums and sentence types, the assembler counts fixes. A
/// format's own counters (UBX frames, gpsd reports) are its own type, a
/// ``FormatStatistics`` kept in ``formats``: this type knows no format but NMEA's. Nothing here is fatal: bad input only costs the damaged
/// lines and shows up in these numbers.
public struct DecoderStatistics: Sendable, Equatable {
    /// Non-empty lines seen, of any kind (sentences, comments, JSON, junk).
    public var lines = 0
    /// Lines starting with `#`: capture headers and comments, skipped.
    public var commentLines = 0
    /// Sentence candidates framed: lines starting with `$` or `!`.
    public var sentences = 0
    /// Sentences of a supported type (RMC, GGA, GNS, GLL, GSA, GST, VTG, ZDA) decoded.
    public var acceptedSentences = 0
    /// Accepted sentences that carried no checksum (see ``ChecksumPolicy``).
    public var uncheckedSentences = 0
    /// Sentences rejected because their `*hh` checksum did not match or was garbled.
    public var badChecksums = 0
    /// Sentences rejected because they carried no checksum (see ``ChecksumPolicy``).
    public var missingChecksums = 0
    /// Well-formed sentences of a type this decoder does not use (GSV, TXT, proprietary), ignored.
    public var ignoredSentences = 0
    /// Sentences with a good checksum but an unparsable or out-of-range field, rejected.
    public var malformedSentences = 0
    /// Lines longer than the framer's maximum, discarded.
    public var overlongLines = 0
    /// Sentences cut short by binary data, a NUL or another `$` before their end, discarded.
    public var brokenLines = 0
    /// Bytes discarded outside sentences: binary frames (UBX, RTCM3), junk, overlong lines.
    public var skippedBytes = 0
    /// Reporting cycles (or gpsd reports) without a valid position: no fix, void, no time.
    public var invalidFixes = 0
    /// Valid fixes dropped because no date was known for them (see ``DatePolicy``).
    public var undatedFixes = 0
    /// Stream dates moved forward by 1024 weeks (GPS week rollover, see ``GPSWeekRollover``).
    public var weekRolloverCorrections = 0
    /// Sentences (or gpsd reports, or UBX NAV messages) that came after their reporting cycle had been emitted, dropped.
    public var lateSentences = 0
    /// Fixes dated more than a day after the system clock (a receiver's glitched date), dropped.
    public var futureFixes = 0
    /// Fixes whose time jumped away from the stream and back (one glitched date), dropped.
    public var timeOutliers = 0
    /// Fixes emitted.
    public var fixes = 0

    /// Each format's own counters, in the order first counted.
    public private(set) var formats: [any FormatStatistics] = []

    /// Creates statistics with every counter at zero.
    public init() {}

    /// The counters of format `type` (zero when it counted nothing).
    public subscript<Counts: FormatStatistics>(_ type: Counts.Type) -> Counts {
        get { formats.lazy.compactMap { $0 as? Counts }.first ?? Counts() }
        set {
            if let index = formats.firstIndex(where: { $0 is Counts }) {
                formats[index] = newValue
            } else if newValue != Counts() {
                formats.append(newValue)
            }
        }
    }

    private mutating func add<Counts: FormatStatistics>(format counts: Counts) {
        self[Counts.self].add(counts)
    }

    /// The shared counters, in one list (for equality).
    private var shared: [Int] {
        [lines, commentLines, sentences, acceptedSentences, uncheckedSentences, badChecksums, missingChecksums,
         ignoredSentences, malformedSentences, overlongLines, brokenLines, skippedBytes, invalidFixes, undatedFixes,
         weekRolloverCorrections, lateSentences, futureFixes, timeOutliers, fixes]
    }

    public static func == (left: DecoderStatistics, right: DecoderStatistics) -> Bool {
        left.shared == right.shared && left.formats.count == right.formats.count
            && left.formats.allSatisfy { $0.isEqual(to: right) }
    }

    /// Units a format recognised as its own: sentences of a supported type, UBX frames with a
    /// good checksum, gpsd reports of any class. Zero for a file of something else entirely.
    public var recognisedUnits: Int { formats.reduce(acceptedSentences) { $0 + $1.recognisedUnits } }

    /// Adds every counter of `other` to this one.
    public mutating func add(_ other: DecoderStatistics) {
        lines += other.lines
        commentLines += other.commentLines
        sentences += other.sentences
        acceptedSentences += other.acceptedSentences
        uncheckedSentences += other.uncheckedSentences
        badChecksums += other.badChecksums
        missingChecksums += other.missingChecksums
        ignoredSentences += other.ignoredSentences
        malformedSentences += other.malformedSentences
        overlongLines += other.overlongLines
        brokenLines += other.brokenLines
        skippedBytes += other.skippedBytes
        invalidFixes += other.invalidFixes
        undatedFixes += other.undatedFixes
        weekRolloverCorrections += other.weekRolloverCorrections
        lateSentences += other.lateSentences
        futureFixes += other.futureFixes
        timeOutliers += other.timeOutliers
        fixes += other.fixes
        for counts in other.formats { add(format: counts) }
    }

    /// A one-line human summary, e.g. `22388 lines, 22388 sentences (22388 accepted), 5597 fixes`,
    /// naming only the counters that are not zero beyond lines and fixes.
    public func summary() -> String {
        var parts = [Plural.count(lines, "line")]
        if sentences > 0 {
            parts.append("\(Plural.count(sentences, "sentence")) (\(acceptedSentences) accepted)")
        }
        for counts in formats { parts += counts.headline }
        // (count, singular, plural): each counted with `Plural`.
        var details: [(Int, String, String?)] = [
            (commentLines, "comment line", nil),
            (uncheckedSentences, "accepted without checksum", "accepted without checksum"),
            (badChecksums, "bad checksum", nil),
            (missingChecksums, "missing checksum", nil),
            (ignoredSentences, "ignored sentence", nil),
            (malformedSentences, "malformed sentence", nil),
            (overlongLines, "overlong line", nil),
            (brokenLines, "broken line", nil),
            (skippedBytes, "byte skipped", "bytes skipped"),
            (invalidFixes, "invalid fix", nil),
            (undatedFixes, "undated fix", nil),
            (weekRolloverCorrections, "week rollover correction", nil),
            (lateSentences, "late sentence", nil),
            (futureFixes, "fix dated in the future", "fixes dated in the future"),
            (timeOutliers, "time outlier", nil),
        ]
        // The formats' own after the shared ones, before the dates' corrections.
        let formatDetails = formats.flatMap { $0.details }
        details.insert(contentsOf: formatDetails, at: details.count - 2)
        for (count, singular, plural) in details where count > 0 {
            parts.append(Plural.count(count, singular, plural: plural))
        }
        parts.append(Plural.count(fixes, "fix"))
        return parts.joined(separator: ", ")
    }
}
