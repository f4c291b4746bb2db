import Foundation

/// The one JSON scanner of the tests: what a command printed, a server received or a file
/// holds, as Foundation's objects, for assertions. (The product's own reader is
/// OverlandJSON; the tests read with an independent one.)
public enum JSONScan {
    /// The JSON value in `bytes`; throws when it is not JSON.
    public static func value(_ bytes: some Sequence<UInt8>) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)
    }

    /// The JSON object in `bytes`, nil when the JSON is not an object; throws when it is not JSON.
    public static func object(_ bytes: some Sequence<UInt8>) throws -> [String: Any]? {
        try value(bytes) as? [String: Any]
    }

    /// The JSON object in `text`.
    public static func object(_ text: String) throws -> [String: Any]? {
        try object(text.utf8)
    }

    /// One object per non-empty line (JSON lines); a line that is not an object is left out.
    public static func objects(lines text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { line in (try? object(Array(line.utf8))) ?? nil }
    }
}
