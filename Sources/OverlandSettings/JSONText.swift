import OverlandJSON

/// JSON values shown to people: in error messages, `overland config get` and change lists.
enum JSONText {
    /// How much of a value a server sent is quoted in a warning: enough to recognise a
    /// wrong value, too little to carry a secret behind padding.
    static let serverValueLimit = 40

    /// Compact JSON text, cut to `limit` characters so that a huge value cannot flood a message.
    static func render(_ value: JSONValue, limit: Int = 80) -> String {
        var writer = JSONWriter()
        writer.appendValue(value)
        let text = String(decoding: writer.bytes, as: UTF8.self)
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
