import OverlandJSON

/// Counters of what a decoder read, accepted, skipped and emitted.
///
/// Each stage fills its own counters: the framers count lines and skipped bytes, the
/// sentence decoder counts checksums and sentence types, the assembler counts fixes, the
/// gpsd decoder counts reports. Nothing here is fatal: bad input only costs the damaged
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
    /// UBX frames with a good checksum.
    public var binaryFrames = 0
    /// UBX NAV-PVT and NAV-SOL frames (navigation solutions) among them.
    public var positionFrames = 0
    /// UBX frames of other messages, ignored.
    public var ignoredFrames = 0
    /// UBX frames with a bad checksum or cut short, skipped.
    public var brokenFrames = 0
    /// UBX frames with values out of range, skipped.
    public var malformedFrames = 0
    /// NMEA fixes dropped because UBX (NAV-PVT or NAV-SOL) reports the same epochs.
    public var supersededFixes = 0
    /// gpsd JSON reports of class TPV read.
    public var positionReports = 0
    /// gpsd JSON reports of other classes (VERSION, DEVICES, WATCH, SKY, ...), ignored.
    public var ignoredReports = 0
    /// gpsd JSON lines that were not valid JSON objects or had unusable members.
    public var malformedReports = 0
    /// gpsd TPV reports merged into the previous one because they had the same time.
    public var mergedReports = 0
    /// Fixes emitted.
    public var fixes = 0

    /// Creates statistics with every counter at zero.
    public init() {}

    /// Units a format recognised as its own: sentences of a supported type, UBX frames with a
    /// good checksum, gpsd reports of any class. Zero for a file of something else entirely.
    public var recognisedUnits: Int { acceptedSentences + binaryFrames + positionReports + ignoredReports }

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
        binaryFrames += other.binaryFrames
        positionFrames += other.positionFrames
        ignoredFrames += other.ignoredFrames
        brokenFrames += other.brokenFrames
        malformedFrames += other.malformedFrames
        supersededFixes += other.supersededFixes
        positionReports += other.positionReports
        ignoredReports += other.ignoredReports
        malformedReports += other.malformedReports
        mergedReports += other.mergedReports
        fixes += other.fixes
    }

    /// A one-line human summary, e.g. `22388 lines, 22388 sentences (22388 accepted), 5597 fixes`,
    /// naming only the counters that are not zero beyond lines and fixes.
    public func summary() -> String {
        var parts = [Plural.count(lines, "line")]
        if sentences > 0 {
            parts.append("\(Plural.count(sentences, "sentence")) (\(acceptedSentences) accepted)")
        }
        if binaryFrames > 0 {
            parts.append("\(Plural.count(binaryFrames, "UBX frame")) (\(positionFrames) NAV-PVT/SOL)")
        }
        if positionReports > 0 || ignoredReports > 0 {
            parts.append(Plural.count(positionReports, "TPV report"))
        }
        // (count, singular, plural): each counted with `Plural`.
        let details: [(Int, String, String?)] = [
            (commentLines, "comment line", nil),
            (uncheckedSentences, "accepted without checksum", "accepted without checksum"),
            (badChecksums, "bad checksum", nil),
            (missingChecksums, "missing checksum", nil),
            (ignoredSentences, "ignored sentence", nil),
            (malformedSentences, "malformed sentence", nil),
            (overlongLines, "overlong line", nil),
            (brokenLines, "broken line", nil),
            (skippedBytes, "byte skipped", "bytes skipped"),
            (ignoredReports, "ignored report", nil),
            (malformedReports, "malformed report", nil),
            (mergedReports, "merged report", nil),
            (invalidFixes, "invalid fix", nil),
            (undatedFixes, "undated fix", nil),
            (weekRolloverCorrections, "week rollover correction", nil),
            (lateSentences, "late sentence", nil),
            (ignoredFrames, "ignored UBX frame", nil),
            (brokenFrames, "broken UBX frame", nil),
            (malformedFrames, "malformed UBX frame", nil),
            (supersededFixes, "NMEA fix superseded by UBX", "NMEA fixes superseded by UBX"),
            (futureFixes, "fix dated in the future", "fixes dated in the future"),
            (timeOutliers, "time outlier", nil),
        ]
        for (count, singular, plural) in details where count > 0 {
            parts.append(Plural.count(count, singular, plural: plural))
        }
        parts.append(Plural.count(fixes, "fix"))
        return parts.joined(separator: ", ")
    }
}
