import OverlandJSON

/// A `Retry-After` header (RFC 9110 section 10.2.3) on a 429 or 503: how long the server
/// asks us to wait, in seconds from `now`, or nil when the value is neither form.
///
/// Two forms: delay-seconds (`3600`) and an HTTP-date, either the preferred IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`) or the obsolete RFC 850 form
/// (`Sunday, 06-Nov-94 08:49:37 GMT`). A date in the past means no wait (0). The caller caps
/// the result (`SyncBackoff.retryAfterCap`).
public enum RetryAfter {
    public static func seconds(_ value: String, now: Int64) -> Int64? {
        let text = value.trimmingSpaces()
        if !text.isEmpty, text.utf8.count <= 12, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return Int64(text)
        }
        guard let date = httpDate(String(text)) else { return nil }
        return max(0, date - now)
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Unix seconds of an IMF-fixdate or RFC 850 date, nil otherwise.
    static func httpDate(_ text: String) -> Int64? {
        // "Sun, 06 Nov 1994 08:49:37 GMT" or "Sunday, 06-Nov-94 08:49:37 GMT".
        guard let comma = text.firstIndex(of: ","), text.hasSuffix(" GMT") else { return nil }
        let rest = text[text.index(after: comma)...].dropLast(4).split(separator: " ")
        let day: Substring, month: Substring, year: Substring, time: Substring
        if rest.count == 4 {
            (day, month, year, time) = (rest[0], rest[1], rest[2], rest[3])
        } else if rest.count == 2 {
            let parts = rest[0].split(separator: "-")
            guard parts.count == 3 else { return nil }
            (day, month, time) = (parts[0], parts[1], rest[1])
            // RFC 9110: a two-digit year more than 50 years ahead is in the past century.
            guard parts[2].count == 2, let short = Int(parts[2]) else { return nil }
            year = Substring(String(short < 70 ? 2000 + short : 1900 + short))
        } else {
            return nil
        }
        guard day.count == 2, let monthIndex = months.firstIndex(of: String(month)), year.count == 4, time.count == 8,
              day.allSatisfy(\.isNumber), year.allSatisfy(\.isNumber) else { return nil }
        return ISO8601UTC.parse("\(year)-\(monthIndex < 9 ? "0" : "")\(monthIndex + 1)-\(day)T\(time)Z")
    }
}

private extension String {
    func trimmingSpaces() -> Substring {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
