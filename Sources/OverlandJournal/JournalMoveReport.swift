import OverlandJSON

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

extension JournalMoveReport {
    /// What `overland journal move` says of a move: the target created, an interrupted
    /// move finished, what moved, what each destination had of it, why it stopped.
    public var lines: [String] {
        var lines: [String] = []
        if targetCreated { lines.append("created journal \(targetID) at '\(targetPath)'") }
        if resumed { lines.append("finished an interrupted move") }
        lines.append("moved \(Plural.count(segments, "segment")), \(Plural.count(records, "record")), \(Plural.count(bytes, "byte")) to '\(targetPath)'")
        lines += placeLines
        if let stoppedAt { lines.append("stopped: \(stoppedAt)") }
        return lines
    }

    /// What `overland journal move --abort` says, `source` the journal the move came from.
    public func abortLine(source: String) -> String {
        if let intentSetAside {
            return "move aborted: its intent could not be read and was set aside as '\(intentSetAside)'; every unsent segment stays in '\(source)'"
        }
        return "move aborted: \(Plural.count(segments, "segment")) (\(Plural.count(records, "record"))) complete in the target; the rest stay in '\(source)'"
    }

    /// What each destination had of the moved records: carried (skipped by an upload of
    /// the target to the same receiver), or to be sent again, and to whom.
    var placeLines: [String] {
        var lines: [String] = []
        for (name, count) in carried.sorted(by: { $0.key < $1.key }) where count > 0 {
            lines.append("\(name) had acknowledged \(count) of the moved records: its place went with them; an upload of the target "
                         + "to the same receiver (url, token, protocol, device id) skips them, any other sends them again")
        }
        for (name, count) in notCarried.sorted(by: { $0.key < $1.key }) where count > 0 {
            lines.append("\(name) had acknowledged \(count) of the moved records but is not configured here: "
                         + "an upload of the target to its receiver sends those \(count) twice")
        }
        return lines
    }
}
