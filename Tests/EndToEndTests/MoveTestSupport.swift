import TestSupport
import Foundation
import Testing
import OverlandJSON
import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

/// A private place for one test of `overland journal move`: a temporary directory, and an
/// `overland` runner whose settings and state live there (never the real user's).
struct MoveSandbox {
    let directory: TemporaryDirectory
    let runner: ToolRunner

    init(prefix: String = "overland-move") throws {
        directory = try TemporaryDirectory(prefix: prefix)
        var runner = ToolRunner(product: "overland")
        runner.environment = Self.environment(directory)
        self.runner = runner
    }

    /// Settings, state and home inside `directory`; nothing inherited that picks a journal.
    static func environment(_ directory: TemporaryDirectory) -> [String: String?] {
        [
            "XDG_CONFIG_HOME": directory.appending("config"),
            "XDG_STATE_HOME": directory.appending("state"),
            "XDG_DATA_HOME": directory.appending("data"),
            "HOME": directory.appending("home"),
            "OVERLAND_CONFIG": nil, "OVERLAND_URL": nil, "OVERLAND_TOKEN": nil,
            "OVERLAND_DEVICE_ID": nil, "OVERLAND_JOURNAL": nil, "OVERLAND_FAULT_POINT": nil,
        ]
    }

    var source: String { directory.appending("source") }
    var target: String { directory.appending("stick/overland") }

    /// Runs `overland journal move --journal SOURCE --to TARGET EXTRA`, with a fault point armed.
    func move(_ extra: [String] = [], to target: String? = nil, fault: String? = nil) throws -> ToolResult {
        try runner.run(["journal", "move", "--journal", source, "--to", target ?? self.target] + extra,
                       environment: ["OVERLAND_FAULT_POINT": fault])
    }

    /// Runs `overland ARGUMENTS`.
    func overland(_ arguments: [String], environment: [String: String?] = [:]) throws -> ToolResult {
        try runner.run(arguments, environment: environment)
    }
}

/// Stored location lines with distinct timestamps (`t0 + index` seconds), so that every
/// record is unique and can be followed across journals.
enum MoveRecords {
    static let t0: Int64 = 1_795_000_000

    static func line(_ index: Int, pad: Int = 0) -> String {
        var line = #"{"type":"Feature","geometry":{"type":"Point","coordinates":["#
        line += "\(13.4 + Double(index % 1000) * 0.0001),\(52.5 + Double(index / 1000) * 0.001)]},\"properties\":{\"timestamp\":\""
        line += ISO8601UTC.string(from: t0 + Int64(index))
        line += "\",\"altitude\":\(30 + index % 7),\"speed\":1.5,\"course\":\(index % 360),\"horizontal_accuracy\":5,"
        line += "\"vertical_accuracy\":3,\"speed_accuracy\":-1,\"course_accuracy\":-1,\"motion\":[\"driving\"],"
        line += "\"battery_state\":\"unplugged\",\"battery_level\":0.8,\"wifi\":\"\",\"device_id\":\"van\""
        if pad > 0 { line += ",\"pad\":\"\(noise(index, pad))\"" }
        return line + "}}"
    }

    /// Hex that does not compress, to make segments big.
    static func noise(_ index: Int, _ count: Int) -> String {
        var state = UInt64(index) &* 0x9E37_79B9_7F4A_7C15 | 1
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        for _ in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            bytes.append(digits[Int(state & 15)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A source journal: `sealed` sealed segments of `perSegment` records, then an active
    /// segment of `active` records, and the cursor at `cursor`; the records are numbered
    /// from `offset` (distinct journals get distinct records). Returns every line, in order.
    @discardableResult
    static func makeSource(at path: String, sealed: Int = 6, perSegment: Int = 20, active: Int = 5, cursor: UInt64 = 27,
                           pad: Int = 0, deviceID: String = "van", machine: String? = nil, offset: Int = 0) throws -> [String] {
        let journal = try Journal(path: path, create: true, deviceID: deviceID, machine: machine)
        let appender = try JournalAppender(journal: journal)
        var lines: [String] = []
        for segment in 0..<sealed {
            for index in 0..<perSegment {
                let line = line(offset + segment * perSegment + index, pad: pad)
                lines.append(line)
                try appender.append(Array(line.utf8))
                if index % 7 == 6 { try appender.commit() }
            }
            try appender.sealActive()
        }
        for index in 0..<active {
            let line = line(offset + sealed * perSegment + index, pad: pad)
            lines.append(line)
            try appender.append(Array(line.utf8))
        }
        try appender.commit()
        if cursor > 0 { try journal.advanceCursor(to: cursor) }
        return lines
    }
}

/// What a journal holds, as a sync would see it.
struct JournalView {
    var id: String
    var records: [(sequence: UInt64, line: String)]
    var cursor: UInt64
    var movePending: Bool
    var issues: [JournalIssue]

    /// Records at or after the cursor.
    var unsent: [String] { records.filter { $0.sequence >= cursor }.map(\.line) }
    /// What a sync would send now: nothing while a move is pending.
    var sendable: [String] { movePending ? [] : unsent }

    /// Reads the journal at `path`; nil when there is none.
    static func read(_ path: String) throws -> JournalView? {
        guard FileManager.default.fileExists(atPath: path + "/manifest.json") else { return nil }
        let issues = IssueCollector()
        let journal = try Journal(path: path)
        let reader = try journal.records(from: 0, onIssue: issues.handler)
        var records: [(UInt64, String)] = []
        while let record = try reader.next() {
            records.append((record.sequence, String(decoding: record.line, as: UTF8.self)))
        }
        return JournalView(id: journal.id.description, records: records, cursor: try journal.cursor(),
                           movePending: try journal.pendingMove() != nil, issues: issues.issues)
    }
}

enum MoveInvariant {
    /// What must hold at any moment, crash or not: every unsent record is in the source or
    /// the target (never lost), none is sendable from both (never uploaded twice), and
    /// neither journal holds a record twice or has damage.
    static func check(unsent expected: [String], source: JournalView?, target: JournalView?, context: String,
                      sourceLocation: SourceLocation = #_sourceLocation) {
        let sourceUnsent = source?.unsent ?? []
        let targetUnsent = target?.unsent ?? []
        #expect(Set(sourceUnsent).count == sourceUnsent.count, "\(context): the source holds a record twice", sourceLocation: sourceLocation)
        #expect(Set(targetUnsent).count == targetUnsent.count, "\(context): the target holds a record twice", sourceLocation: sourceLocation)
        let present = Set(sourceUnsent).union(targetUnsent)
        let lost = expected.filter { !present.contains($0) }
        #expect(lost.isEmpty, "\(context): \(lost.count) records in neither journal", sourceLocation: sourceLocation)
        let both = Set(source?.sendable ?? []).intersection(targetUnsent)
        #expect(both.isEmpty, "\(context): \(both.count) records sendable from both journals", sourceLocation: sourceLocation)
        let strangers = present.subtracting(expected)
        #expect(strangers.isEmpty, "\(context): \(strangers.count) records nobody wrote", sourceLocation: sourceLocation)
        #expect(source?.issues.isEmpty ?? true, "\(context): source issues \(source?.issues ?? [])", sourceLocation: sourceLocation)
        #expect(target?.issues.isEmpty ?? true, "\(context): target issues \(target?.issues ?? [])", sourceLocation: sourceLocation)
        #expect(target?.movePending != true, "\(context): the target has a move pending", sourceLocation: sourceLocation)
    }

    /// After a move ran to its end: nothing pending, the sealed records in the target in
    /// order, the active segment's records in the source, each exactly once.
    static func checkComplete(unsent expected: [String], stayed: [String], source: JournalView?, target: JournalView?,
                              context: String, sourceLocation: SourceLocation = #_sourceLocation) {
        check(unsent: expected, source: source, target: target, context: context, sourceLocation: sourceLocation)
        #expect(source?.movePending == false, "\(context): the move is still pending", sourceLocation: sourceLocation)
        #expect(source?.unsent == stayed, "\(context): the source should keep only the active segment's records", sourceLocation: sourceLocation)
        let moved = expected.filter { !stayed.contains($0) }
        #expect(target?.unsent == moved, "\(context): the target should hold the moved records in order", sourceLocation: sourceLocation)
    }
}
