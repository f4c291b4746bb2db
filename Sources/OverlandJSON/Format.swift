/// Human figures for what the commands show: durations, one decimal, aligned tables
/// (`Format.distance`, in OverlandProtocol, rounds metres as trip records do).
public enum Format {
    public static func duration(_ seconds: Int64) -> String {
        let seconds = max(seconds, 0)
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3600 { return "\(seconds / 60) min \(seconds % 60) s" }
        if seconds < 2 * 86_400 { return "\(seconds / 3600) h \(seconds / 60 % 60) min" }
        return "\(seconds / 86_400) d \(seconds / 3600 % 24) h"
    }

    /// Aligned lines of a label and a value, each value on its own line whatever it holds:
    /// values come from files (a state file's last error, a geocode, an input's name), and
    /// are shown escaped (`PrintableText.escaped`), here for every table `status` prints.
    public static func table(_ lines: [(String, String)], indent: String = "") -> String {
        let width = lines.map(\.0.count).max() ?? 0
        return lines.map { indent + $0.0 + String(repeating: " ", count: width + 2 - $0.0.count) + PrintableText.escaped($0.1) + "\n" }
            .joined()
    }

    /// `value` with one decimal (half away from zero), or nil when it is too large to be
    /// any measure (a hand-edited journal's speed of 1e300 must not trap the reader).
    public static func tenths(_ value: Double) -> String? {
        CheckedInteger.rounded(value * 10).map { "\(Double($0) / 10)" }
    }
}
