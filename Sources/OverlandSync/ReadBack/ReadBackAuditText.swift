import OverlandJSON
import OverlandSettings

/// What `overland destination audit` prints of its days, and the window its `--since` and
/// `--until` (and `resend`'s) name: one rule for both commands.
extension ReadBackAudit {
    /// `--since` and `--until` as Unix seconds: a day from its first second (since) or
    /// through its last (until), or a time. Throws the line naming the value.
    public static func span(since: String?, until: String?) throws(SpanError) -> (since: Int64?, until: Int64?) {
        let start = try since.map { text throws(SpanError) in try parse(text, option: "--since", dayEnd: false) }
        let end = try until.map { text throws(SpanError) in try parse(text, option: "--until", dayEnd: true) }
        if let start, let end, start > end {
            throw SpanError(description: "--since \(since ?? "") is after --until \(until ?? "")")
        }
        return (start, end)
    }

    /// A day (its first second, or its last with `dayEnd`) or a time, UTC.
    public static func parse(_ text: String, option: String, dayEnd: Bool) throws(SpanError) -> Int64 {
        if let time = ISO8601UTC.parse(text) { return time }
        if let day = ISO8601UTC.parse(text + "T00:00:00Z") { return dayEnd ? day + 86_399 : day }
        throw SpanError(description: "invalid value \"\(PrintableText.sanitised(String(text.prefix(64)), allowLineBreaks: false))\" "
                        + "for \(option) (allowed: a day YYYY-MM-DD or a time YYYY-MM-DDTHH:MM:SSZ, UTC)")
    }

    /// A `--since` or `--until` that names no day or time, or a window that ends before it starts.
    public struct SpanError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// The days as an aligned table, one line a day, and a line adding them up when there are several.
    public static func table(_ days: [Day]) -> String {
        let columns = ["sent", "stored", "missing", "moved", "extra"]
        var text = "day         " + columns.map { SettingsText.padded($0, to: 8) }.joined() + "\n"
        for day in days {
            let values = [day.sent, day.stored, day.missing, day.moved, day.extra].map { SettingsText.padded(String($0), to: 8) }
            text += String(ISO8601UTC.string(from: day.start).prefix(10)) + "  " + values.joined() + "\n"
        }
        if days.isEmpty {
            text += "(no points sent to this destination are left in the journal)\n"
        } else if days.count > 1 {
            let values = [\.sent, \.stored, \.missing, \.moved, \.extra].map { (key: KeyPath<Day, Int>) in
                SettingsText.padded(String(days.reduce(0) { $0 + $1[keyPath: key] }), to: 8)
            }
            text += "all         " + values.joined() + "\n"
        }
        return text
    }

    /// The days as a JSON array, one object a day.
    public static func json(_ days: [Day]) -> String {
        var writer = JSONWriter()
        writer.appendRaw("[")
        for (index, day) in days.enumerated() {
            writer.appendRaw(index == 0 ? "{\"day\":" : ",{\"day\":")
            writer.appendString(String(ISO8601UTC.string(from: day.start).prefix(10)))
            for (key, value) in [("sent", day.sent), ("stored", day.stored), ("missing", day.missing), ("moved", day.moved), ("extra", day.extra)] {
                writer.appendRaw(",\"")
                writer.appendRaw(Array(key.utf8))
                writer.appendRaw("\":")
                writer.appendInteger(value)
            }
            writer.appendRaw("}")
        }
        writer.appendRaw("]\n")
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
