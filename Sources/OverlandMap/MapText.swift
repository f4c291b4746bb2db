import OverlandJSON

/// Text into the page: escaped for markup or a JSON string, with numbers and times written
/// the same way in the HTML and the SVG.
enum MapText {
    /// XML and HTML text or attribute content: markup characters escaped, control
    /// characters and bidirectional overrides dropped (`PrintableText`).
    static func escaped(_ raw: String) -> String {
        var out = ""
        for character in PrintableText.sanitised(raw, replacement: "").unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case _ where character.value < 0x20: continue
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// A JSON string literal safe inside a `<script>` element: `<`, `>` and `&` as \u escapes.
    static func jsonString(_ raw: String) -> String {
        var out = "\""
        for scalar in PrintableText.sanitised(raw, replacement: "").unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "<", ">", "&", "\u{2028}", "\u{2029}":
                out += "\\u" + hex4(scalar.value)
            case _ where scalar.value < 0x20: out += "\\u" + hex4(scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = Array("0123456789abcdef")
        return String((0..<4).map { digits[Int((value >> UInt32(12 - 4 * $0)) & 0xF)] })
    }

    /// One decimal, no trailing ".0", no "-0": SVG coordinates.
    static func tenth(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        let magnitude = tenths.magnitude
        return magnitude % 10 == 0 ? sign + String(magnitude / 10) : sign + String(magnitude / 10) + "." + String(magnitude % 10)
    }

    /// 2026-11-21 05:17:12Z.
    static func time(_ seconds: Int64) -> String {
        let text = ISO8601UTC.string(from: seconds)
        return String(text.prefix(10)) + " " + String(text.dropFirst(11))
    }

    /// 3 h 05 min, 12 min 04 s, 40 s, 2 d 3 h.
    static func duration(_ seconds: Int64) -> String {
        let s = max(seconds, 0)
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min " + pad(s % 60) + " s" }
        if s < 86_400 { return "\(s / 3600) h " + pad(s / 60 % 60) + " min" }
        return "\(s / 86_400) d \(s / 3600 % 24) h"
    }

    private static func pad(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// 850 m, 12.3 km, 1,234 km.
    static func distance(_ metres: Double) -> String {
        if metres < 1000 { return "\(Int(metres.rounded())) m" }
        if metres < 100_000 { return tenth(metres / 1000) + " km" }
        return "\(Int((metres / 1000).rounded())) km"
    }

    static func count(_ value: Int, _ noun: String, plural: String? = nil) -> String { Plural.count(value, noun, plural: plural) }
}
