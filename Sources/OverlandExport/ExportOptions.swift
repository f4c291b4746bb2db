import OverlandJournal
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
    /// With `unsentOnly`: every configured destination's cursor. A record is unsent while
    /// one of them has not had it acknowledged (`Journal.unsentFrom(readers:)`); empty: the floor.
    public var readers: [CursorName] = []
    /// GeoJSON only: locations alone, without trip, visit and action records (GPX and CSV
    /// always hold locations alone).
    public var pointsOnly = false
    /// A gap between two points longer than this starts a new GPX track segment.
    public var segmentGapSeconds: Int64 = 900
    /// The GPX `creator`.
    public var creator = "overland"
    /// A journal not in time order is sorted through temporary files of at most this many
    /// records each (about 10 MB of memory at the journal's 1 KiB typical line, far less in
    /// practice).
    public var sortChunkRecords = 10_000
    /// Where those files go (a private directory made inside); nil: $TMPDIR, else /tmp.
    public var temporaryDirectory: String?

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
    /// Points logged with a time earlier than a point logged before them: the journal is
    /// not in time order there (e.g. an old capture imported after newer points). They are
    /// written in time order all the same.
    public var outOfOrder = 0
    /// Sorted runs written to temporary files to put them in order (0 for a journal in
    /// time order).
    public var sortedRuns = 0
    /// The earliest and latest point time written.
    public var earliest: Int64?
    public var latest: Int64?

    public init() {}
}
