/// What to export and how.
public struct ExportOptions: Sendable, Equatable {
    public var format: ExportFormat
    /// Only records at or after this time (Unix seconds).
    public var from: Int64?
    /// Only records at or before this time (Unix seconds).
    public var to: Int64?
    /// Only records not yet sent (from the cursor on); otherwise every record the journal
    /// still holds, sent ones that retention kept included.
    public var unsentOnly = false
    /// GeoJSON only: locations alone, without trip, visit and action records (GPX and CSV
    /// always hold locations alone).
    public var pointsOnly = false
    /// A gap between two points longer than this starts a new GPX track segment.
    public var segmentGapSeconds: Int64 = 900
    /// The GPX `creator`.
    public var creator = "overland"

    public init(format: ExportFormat) {
        self.format = format
    }
}

/// What an export wrote.
public struct ExportSummary: Sendable, Equatable {
    /// Records read from the journal.
    public var records = 0
    /// Records written (points, or Features for GeoJSON).
    public var written = 0
    /// Records outside the time window.
    public var outsideWindow = 0
    /// Records left out because the format holds locations only (trips, visits, actions),
    /// or because their values do not fit it (a position out of range).
    public var leftOut = 0
    /// Points written with a time earlier than the point written before them: the journal
    /// is not in time order there (e.g. an old capture imported after newer points).
    public var outOfOrder = 0
    /// The earliest and latest point time written.
    public var earliest: Int64?
    public var latest: Int64?

    public init() {}
}
