import OverlandJSON

/// What `overland journal verify` says of a journal, as text (the command prints it): a
/// cursor's line, and the JSON of `--json` (journal-format.md section 14), printed with
/// `, ` and `: ` between items, keys in a fixed order, so that two conforming readers
/// print the same text for the same journal:
///
///     {"segments": 2, "records": 4180, "damaged": [{"file": "segments/…", "offset": 0,
///      "length": 96, "reason": "bad-data"}], "cursors": {"default": {"next": 10, "unsent": 4170}},
///      (with named cursors: {"cursor.json": {…}, "NAME": {…}, …})
///      "tail": null}
public enum VerifySummary {
    /// One cursor file as `verify` reports it: its key in `cursors` (section 14), its file
    /// relative to the journal, and what it holds.
    public struct Cursor: Sendable {
        public var key: String
        public var file: String
        public var reading: Journal.CursorReading
        /// The reader's progress record (section 9), when it has one: never a refusal.
        public var progress: Journal.ProgressReading? = nil
    }

    /// The journal's cursors in the order of section 14: with one reader, `cursor.json` as
    /// `default`; with named cursors, `cursor.json` (the floor) under its file name, then each
    /// `cursors/NAME.json` by name.
    public static func cursors(of journal: Journal, onIssue: JournalIssueHandler?) throws -> [Cursor] {
        let names = try journal.cursorNames(onIssue: onIssue)
        if names.isEmpty {
            return [Cursor(key: "default", file: "cursor.json", reading: try journal.readCursor(for: .default),
                           progress: try journal.readProgress(for: .default))]
        }
        var cursors = [Cursor(key: "cursor.json", file: "cursor.json", reading: try journal.readCursor())]
        for name in names {
            cursors.append(Cursor(key: name.text, file: "cursors/\(name).json", reading: try journal.readCursor(for: name),
                                  progress: try journal.readProgress(for: name)))
        }
        return cursors
    }

    public static func json(_ result: Journal.Verification, cursors: [Cursor]) -> String {
        var writer = JSONWriter()
        writer.appendRaw("{\"segments\": ".utf8)
        writer.appendInteger(Int64(result.segments))
        writer.appendRaw(", \"records\": ".utf8)
        writer.appendInteger(Int64(result.intactRecords))
        writer.appendRaw(", \"damaged\": [".utf8)
        for (index, range) in result.damaged.enumerated() {
            if index > 0 { writer.appendRaw(", ".utf8) }
            appendRange(range, code: range.code.rawValue, to: &writer)
        }
        writer.appendRaw("], \"cursors\": {".utf8)
        for (index, cursor) in cursors.enumerated() {
            if index > 0 { writer.appendRaw(", ".utf8) }
            writer.appendString(cursor.key)
            writer.appendRaw(": ".utf8)
            switch cursor.reading {
            case .valid(let next):
                writer.appendRaw("{\"next\": ".utf8)
                writer.appendInteger(Int64(next))
                writer.appendRaw(", \"unsent\": ".utf8)
                writer.appendInteger(Int64(result.unsent(from: next)))
                if let progress = cursor.progress {
                    writer.appendRaw(", \"progress\": ".utf8)
                    writer.appendString(progressCode(progress))
                }
                writer.appendRaw("}".utf8)
            case .refused(let code, _):
                writer.appendRaw("{\"error\": ".utf8)
                writer.appendString(code)
                writer.appendRaw("}".utf8)
            }
        }
        writer.appendRaw("}, \"tail\": ".utf8)
        if let tail = result.tail { appendRange(tail, code: nil, to: &writer) } else { writer.appendNull() }
        writer.appendRaw("}\n".utf8)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// A cursor as a line of text: `cursor traccar: next 4060, 120 unsent`.
    public static func line(_ cursor: Cursor, _ result: Journal.Verification) -> String {
        let label = cursor.key == "cursor.json" ? "cursor.json (floor)" : "cursor \(cursor.key)"
        switch cursor.reading {
        case .valid(let next):
            let progress: String
            switch cursor.progress {
            case nil: progress = ""
            case .valid?: progress = ""
            case .ignored(let code)?: progress = "; its progress record is not used (\(code))"
            }
            return "\(label): next \(next), \(result.unsent(from: next)) unsent" + progress
        case .refused(let code, _): return "\(label): refused (\(code))"
        }
    }

    /// A progress record's entry in `cursors` (section 14): `valid`, or why it is not used.
    public static func progressCode(_ reading: Journal.ProgressReading) -> String {
        switch reading {
        case .valid: "valid"
        case .ignored(let code): code
        }
    }

    /// What `--json` prints when the journal is refused (journal-format.md section 2: a
    /// symlink or a non-regular file where a journal file should be, a file over its limit).
    public static func refusal(file: String, reason: String) -> String {
        let code = reason.hasSuffix("symbolic link") ? "symlink" : reason.hasPrefix("larger than") ? "too-large" : "not-a-file"
        var writer = JSONWriter()
        writer.appendRaw("{\"refused\": {\"file\": ".utf8)
        writer.appendString(file)
        writer.appendRaw(", \"reason\": ".utf8)
        writer.appendString(code)
        writer.appendRaw("}}\n".utf8)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// `path` relative to the journal directory `journal`, when it lies inside it.
    public static func relative(_ path: String, in journal: String) -> String {
        path.hasPrefix(journal + "/") ? String(path.dropFirst(journal.count + 1)) : path
    }

    private static func appendRange(_ range: Journal.Verification.Range, code: String?, to writer: inout JSONWriter) {
        writer.appendRaw("{\"file\": ".utf8)
        writer.appendString(range.file)
        writer.appendRaw(", \"offset\": ".utf8)
        writer.appendInteger(Int64(range.offset))
        writer.appendRaw(", \"length\": ".utf8)
        writer.appendInteger(Int64(range.length))
        if let code {
            writer.appendRaw(", \"reason\": ".utf8)
            writer.appendString(code)
        }
        writer.appendRaw("}".utf8)
    }
}
