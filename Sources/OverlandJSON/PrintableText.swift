/// The one rule for text that came from data (a journal, a server, a settings file) and is
/// about to be shown: no control character (C0 but tab and newline, DEL, C1) and no
/// bidirectional override or isolate, which could move, clear or recolour a terminal, forge
/// a line or reverse what is read. The terminal shows them as `?`; CSV drops them.
public enum PrintableText {
    /// Whether `scalar` must not reach a terminal or a CSV field as is.
    @inline(__always)
    public static func isUnsafe(_ scalar: Unicode.Scalar, allowLineBreaks: Bool = true) -> Bool {
        let value = scalar.value
        if value == 0x0A || value == 0x09 { return !allowLineBreaks }
        return value < 0x20 || (0x7F...0x9F).contains(value)
            || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
            || value == 0x200E || value == 0x200F || value == 0x061C
    }

    /// Whether `text` holds nothing `isUnsafe` refuses.
    public static func isPrintable(_ text: String, allowLineBreaks: Bool = true) -> Bool {
        !text.unicodeScalars.contains { isUnsafe($0, allowLineBreaks: allowLineBreaks) }
    }

    /// A value read from a file (a state file, the settings' neighbours, a journal), shown
    /// inside a line of a message: every unsafe scalar, newline and tab included, written as
    /// an escape (`\n`, `\r`, `\t`, else `\u{1B}`), so that the value stays on its line
    /// and cannot forge another, and what it held can still be told.
    public static func escaped(_ text: String) -> String {
        if isPrintable(text, allowLineBreaks: false) { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            guard isUnsafe(scalar, allowLineBreaks: false) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }

    /// `text` with every unsafe scalar replaced by `replacement` ("" drops it).
    public static func sanitised(_ text: String, replacement: String = "?", allowLineBreaks: Bool = true) -> String {
        if isPrintable(text, allowLineBreaks: allowLineBreaks) { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar, allowLineBreaks: allowLineBreaks) {
                result.append(contentsOf: replacement.unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }
}
