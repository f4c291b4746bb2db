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

    /// The raw JSON text of `key`'s first value in compact JSON text (`"12"`, `"4.25"`,
    /// `"[...]"`): what a strict receiver sees, before a parser turns 34 into 34.0. Nil when
    /// the key is absent or its value does not end.
    public static func rawValue(of key: String, in text: String) -> String? {
        guard let range = text.range(of: "\"\(key)\":") else { return nil }
        var depth = 0, inString = false, escaped = false
        var end = range.upperBound
        while end < text.endIndex {
            let character = text[end]
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
            } else if character == "\"" {
                inString = true
            } else if character == "[" || character == "{" {
                depth += 1
            } else if character == "]" || character == "}" {
                if depth == 0 { break }
                depth -= 1
                if depth == 0 { return String(text[range.upperBound...end]) }
            } else if character == "," && depth == 0 {
                break
            }
            end = text.index(after: end)
        }
        return end < text.endIndex && !inString && depth == 0 ? String(text[range.upperBound..<end]) : nil
    }
}
