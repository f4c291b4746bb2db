import OverlandJSON

/// The times `--from` and `--to` take: a day (`2026-11-21`, the whole day, UTC) or an
/// instant (`2026-11-21T05:17:12Z`).
public enum ExportTime {
    /// Seconds since 1970 for `text`: a day's first second, or with `endOfDay` its last;
    /// nil when `text` is neither form.
    public static func parse(_ text: String, endOfDay: Bool) -> Int64? {
        if text.utf8.count == 10, let start = ISO8601UTC.parse(text + "T00:00:00Z") {
            return endOfDay ? start + 86_399 : start
        }
        return ISO8601UTC.parse(text)
    }
}
