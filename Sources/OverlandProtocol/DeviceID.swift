/// The rules for the configured device id sent as `device_id` in every Feature.
///
/// Receivers drop points whose device id is blank or longer than 50 characters (Wayfinder
/// answers "ok" and stores nothing), so the id is checked once, when it is configured.
public enum DeviceID {
    /// The most Unicode scalars a device id may have.
    public static let maximumLength = 50

    /// Returns `text` with surrounding whitespace trimmed, or throws if it is blank, longer
    /// than `maximumLength`, or holds a control character.
    ///
    /// Length counts Unicode scalars (code points), not Swift `Character`s: receivers
    /// written in other languages count code points, and an emoji with modifiers is one
    /// `Character` but several code points, so counting Characters would let through ids
    /// that those receivers refuse.
    public static func validate(_ text: String) throws(DeviceIDError) -> String {
        var trimmed = Substring(text)
        while let first = trimmed.first, first.isWhitespace { trimmed.removeFirst() }
        while let last = trimmed.last, last.isWhitespace { trimmed.removeLast() }
        guard !trimmed.isEmpty else { throw .blank(text) }
        if trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw .controlCharacter(text)
        }
        let length = trimmed.unicodeScalars.count
        guard length <= maximumLength else { throw .tooLong(String(trimmed), length: length) }
        return String(trimmed)
    }
}
