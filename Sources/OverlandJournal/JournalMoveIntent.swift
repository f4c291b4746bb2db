import OverlandJSON

/// The intent of a move: its plan, kept in the source's `state/move.json` while the move
/// runs (journal-format.md section 12).
extension Journal {
    /// The state file that holds a move's intent.
    public static let moveIntentStateName = "move.json"

    /// The interrupted move of this journal, if any: while one is pending, the journal
    /// must not be synced (its records may already be in the target).
    public func pendingMove() throws(JournalError) -> JournalMoveIntent? {
        do {
            guard let bytes = try readState(Self.moveIntentStateName) else { return nil }
            return try JournalMoveIntent(parsing: bytes, path: statePath(of: Self.moveIntentStateName))
        } catch .untrusted(let path, let reason) {
            throw .untrusted(path: path, reason: reason + "; 'overland journal move --abort' sets it aside")
        }
    }
}

/// The plan of a move in flight, kept in the source's `state/move.json`.
public struct JournalMoveIntent: Sendable, Equatable, CustomStringConvertible {
    /// One source segment to move.
    public struct Segment: Sendable, Equatable {
        /// The source segment.
        public var name: SegmentName
        /// The first source sequence number moved (the cursor, inside a partly sent segment).
        public var from: UInt64
        /// One past the last source sequence number moved.
        public var end: UInt64
        /// Records moved.
        public var records: Int
        /// The target sequence number of `from`; the others follow at the same distance.
        public var targetFirst: UInt64

        public init(name: SegmentName, from: UInt64, end: UInt64, records: Int, targetFirst: UInt64) {
            self.name = name
            self.from = from
            self.end = end
            self.records = records
            self.targetFirst = targetFirst
        }
    }

    public var sourceID: JournalID
    public var targetID: JournalID
    /// Where the target was when the move began (a hint: the stick may come back elsewhere).
    public var targetPath: String
    public var segments: [Segment]

    public init(sourceID: JournalID, targetID: JournalID, targetPath: String, segments: [Segment]) {
        self.sourceID = sourceID
        self.targetID = targetID
        self.targetPath = targetPath
        self.segments = segments
    }

    public var description: String {
        "an interrupted move to journal \(targetID) at '\(targetPath)' is pending; "
            + "run 'overland journal move --to \(targetPath)' to finish it (or --abort)"
    }

    /// Gives the segments from `index` on new target numbers starting at `next`.
    mutating func renumber(from index: Int, at next: UInt64) {
        var first = next
        for position in index..<segments.count {
            segments[position].targetFirst = first
            first += segments[position].end - segments[position].from
        }
    }

    var encoded: [UInt8] {
        var writer = JSONWriter()
        writer.appendRaw("{\"version\":1,\"source_journal_id\":" as StaticString)
        writer.appendString(sourceID.description)
        writer.appendRaw(",\"target_journal_id\":" as StaticString)
        writer.appendString(targetID.description)
        writer.appendRaw(",\"target\":" as StaticString)
        writer.appendString(targetPath)
        writer.appendRaw(",\"segments\":[" as StaticString)
        for (index, segment) in segments.enumerated() {
            if index > 0 { writer.appendRaw(",") }
            writer.appendRaw("{\"name\":" as StaticString)
            writer.appendString(segment.name.fileName)
            for (key, value) in [("from", segment.from), ("end", segment.end), ("records", UInt64(segment.records)),
                                 ("target_first", segment.targetFirst)] {
                writer.appendRaw(",\"\(key)\":".utf8)
                writer.appendInteger(Int64(value))
            }
            writer.appendRaw("}")
        }
        writer.appendRaw("]}\n" as StaticString)
        return writer.bytes
    }

    init(parsing bytes: [UInt8], path: String) throws(JournalError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, limits: JSONLimits(maxDepth: 4, maxBytes: Journal.maxStateFileBytes))
        } catch {
            throw .untrusted(path: path, reason: "move intent is not JSON (\(error))")
        }
        guard value["version"]?.int == 1,
              let source = value["source_journal_id"]?.string.flatMap(JournalID.init(hex:)),
              let target = value["target_journal_id"]?.string.flatMap(JournalID.init(hex:)),
              let targetPath = value["target"]?.string,
              let list = value["segments"]?.array else {
            throw .untrusted(path: path, reason: "move intent lacks its keys")
        }
        func number(_ item: JSONValue, _ key: String) -> UInt64? {
            guard let number = item[key]?.double, SequenceNumber.isValidEnd(number) else { return nil }
            return UInt64(number)
        }
        var segments: [Segment] = []
        for item in list {
            guard let name = item["name"]?.string.flatMap(SegmentName.init(fileName:)),
                  let from = number(item, "from"), let end = number(item, "end"), let records = number(item, "records"),
                  let targetFirst = number(item, "target_first"), end > from, from >= name.firstSequence,
                  targetFirst + (end - from) <= SequenceNumber.limit else {
                throw .untrusted(path: path, reason: "move intent has a malformed segment entry")
            }
            segments.append(Segment(name: name, from: from, end: end, records: Int(records), targetFirst: targetFirst))
        }
        self.init(sourceID: source, targetID: target, targetPath: targetPath, segments: segments)
    }
}
