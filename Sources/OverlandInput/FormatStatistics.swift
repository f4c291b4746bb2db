import OverlandJSON

/// One input format's own counters, beside the shared ones of ``DecoderStatistics``: what
/// only that format has (UBX frames, gpsd reports), and how they read in the summary.
public protocol FormatStatistics: Sendable, Equatable {
    init()
    mutating func add(_ other: Self)
    /// Units the format recognised as its own (nothing recognisable; a port's rate).
    var recognisedUnits: Int { get }
    /// The summary's parts after the lines and sentences, e.g. "10 UBX frames (10 NAV-PVT/SOL)".
    var headline: [String] { get }
    /// What was skipped, each a count with its noun (singular, and plural when not regular).
    var details: [(Int, String, String?)] { get }
}

extension FormatStatistics {
    /// Whether `statistics` holds the same counters of this format.
    func isEqual(to statistics: DecoderStatistics) -> Bool { statistics[Self.self] == self }
}

/// The counters of u-blox UBX frames (``UBXStreamDecoder``).
public struct UBXStatistics: FormatStatistics {
    /// Frames with a good checksum.
    public var binaryFrames = 0
    /// NAV-PVT and NAV-SOL frames (navigation solutions) among them.
    public var positionFrames = 0
    /// Frames of other messages, ignored.
    public var ignoredFrames = 0
    /// Frames with a bad checksum or cut short, skipped.
    public var brokenFrames = 0
    /// Frames with values out of range, skipped.
    public var malformedFrames = 0
    /// NMEA fixes dropped because NAV-PVT or NAV-SOL reports the same epochs.
    public var supersededFixes = 0

    public init() {}

    public mutating func add(_ other: UBXStatistics) {
        binaryFrames += other.binaryFrames
        positionFrames += other.positionFrames
        ignoredFrames += other.ignoredFrames
        brokenFrames += other.brokenFrames
        malformedFrames += other.malformedFrames
        supersededFixes += other.supersededFixes
    }

    public var recognisedUnits: Int { binaryFrames }

    public var headline: [String] {
        binaryFrames > 0 ? ["\(Plural.count(binaryFrames, "UBX frame")) (\(positionFrames) NAV-PVT/SOL)"] : []
    }

    public var details: [(Int, String, String?)] {
        [(ignoredFrames, "ignored UBX frame", nil), (brokenFrames, "broken UBX frame", nil),
         (malformedFrames, "malformed UBX frame", nil),
         (supersededFixes, "NMEA fix superseded by UBX", "NMEA fixes superseded by UBX")]
    }
}

/// The counters of gpsd JSON reports (``GPSDStreamDecoder``).
public struct GPSDStatistics: FormatStatistics {
    /// Reports of class TPV read.
    public var positionReports = 0
    /// Reports of other classes (VERSION, DEVICES, WATCH, SKY, ...), ignored.
    public var ignoredReports = 0
    /// Lines that were not valid JSON objects or had unusable members.
    public var malformedReports = 0
    /// TPV reports merged into the previous one because they had the same time.
    public var mergedReports = 0

    public init() {}

    public mutating func add(_ other: GPSDStatistics) {
        positionReports += other.positionReports
        ignoredReports += other.ignoredReports
        malformedReports += other.malformedReports
        mergedReports += other.mergedReports
    }

    public var recognisedUnits: Int { positionReports + ignoredReports }

    public var headline: [String] {
        positionReports > 0 || ignoredReports > 0 ? [Plural.count(positionReports, "TPV report")] : []
    }

    public var details: [(Int, String, String?)] {
        [(ignoredReports, "ignored report", nil), (malformedReports, "malformed report", nil), (mergedReports, "merged report", nil)]
    }
}
