/// What a move did.
public struct JournalMoveReport: Sendable, Equatable {
    public var targetID: JournalID
    public var targetPath: String
    /// The target journal was created by this run.
    public var targetCreated = false
    /// An interrupted move was found and finished first.
    public var resumed = false
    /// Segments and records now in the target and gone from the source.
    public var segments = 0
    public var records: UInt64 = 0
    /// Bytes written to the target.
    public var bytes = 0
    /// Unsent records that stayed in the source after a failure in the target.
    public var remaining = 0
    /// Why the move stopped before reaching the newest segment, if something stopped it.
    public var stoppedAt: String?
    /// Per reader, the moved records it had acknowledged whose place went with them
    /// (`state/carried.json` in the target: an upload to its receiver skips them).
    public var carried: [CursorName: UInt64] = [:]
    /// Per reader whose receiver was not named (a cursor file no configured destination
    /// owns), the moved records it had acknowledged: its receiver gets them again if the
    /// target is sent there.
    public var notCarried: [CursorName: UInt64] = [:]
    /// Where an abort put an intent it could not read.
    public var intentSetAside: String?

    public init(targetID: JournalID, targetPath: String) {
        self.targetID = targetID
        self.targetPath = targetPath
    }

    mutating func add(_ segment: MovedSegment) {
        segments += 1
        records += UInt64(segment.records)
        bytes += segment.bytes
    }
}
