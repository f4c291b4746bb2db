import OverlandJSON

/// JSON values shown to people: in error messages, `overland config get` and change lists.
enum JSONText {
    /// How much of a value a server sent is quoted in a warning: enough to recognise a
    /// wrong value, too little to carry a secret behind padding.
    static let serverValueLimit = 40

    /// Compact JSON text, cut to `limit` characters so that a huge value cannot flood a message.
    /// What `PrintableText` calls unsafe (DEL, C1, bidirectional overrides, which JSON may
    /// hold raw) is written as a `\uXXXX` escape: the message shows what the file holds.
    static func render(_ value: JSONValue, limit: Int = 80) -> String {
        var writer = JSONWriter()
        writer.appendValue(value)
        var text = String(decoding: writer.bytes, as: UTF8.self)
        if !PrintableText.isPrintable(text, allowLineBreaks: false) {
            var escaped = ""
            for scalar in text.unicodeScalars {
                if PrintableText.isUnsafe(scalar, allowLineBreaks: false) {
                    let hex = String(scalar.value, radix: 16)
                    escaped += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
            text = escaped
        }
        guard text.count > limit else { return text }
        return String(text.prefix(limit)) + "..."
    }

    /// The value as a person types it: strings bare, null empty, the rest as JSON.
    static func plain(_ value: JSONValue) -> String {
        switch value {
        case .null: return ""
        case .string(let text): return text
        default: return render(value, limit: .max)
        }
    }
}

/// `text` as a JSON string, for naming keys and values in messages: `"batch_size"`.
func quoted(_ text: String) -> String {
    JSONText.render(.string(text))
}
