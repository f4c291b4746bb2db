import OverlandProtocol

/// The checks shared by the settings file, `overland config`, setup links and the environment.
enum Validation {
    static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    static let endpointAllowed = "an http:// or https:// url, its port (if any) 1 to 65535"

    /// `text` when it is an http or https URL with a host, a port (if any) of 1 to 65535
    /// and no whitespace or control characters; templates such as `%TS` are allowed
    /// anywhere after the host.
    static func endpoint(_ text: String) -> String? {
        (try? ReceiverURL.checkHTTP(text)) == nil ? nil : text
    }

    static let tokenAllowed = "a text without control characters, not empty nor only whitespace"

    /// `text` when it can travel in an HTTP header: not empty nor only whitespace (a blank
    /// token is a mistake every receiver refuses, and a header trims it to nothing), no
    /// control characters (a newline would smuggle a header in).
    static func token(_ text: String) -> String? {
        guard !text.isEmpty, !text.allSatisfy(\.isWhitespace), !hasControlCharacter(text) else { return nil }
        return text
    }

    static let deviceIDMaximumLength = 50
    static let deviceIDAllowed = "1 to 50 printable characters, such as \"van\" or \"alice/phone\""

    /// `text` trimmed of surrounding whitespace when it is a usable device id: not blank,
    /// no control characters, at most 50 Unicode scalars (receivers count code points;
    /// Wayfinder drops points with longer ids).
    static func deviceID(_ text: String) -> String? {
        var trimmed = Substring(text)
        while let first = trimmed.first, first.isWhitespace { trimmed.removeFirst() }
        while let last = trimmed.last, last.isWhitespace { trimmed.removeLast() }
        guard !trimmed.isEmpty, trimmed.unicodeScalars.count <= deviceIDMaximumLength else { return nil }
        let result = String(trimmed)
        return hasControlCharacter(result) ? nil : result
    }

    static let absolutePathAllowed = "an absolute path"

    /// `text` when it is an absolute path without control characters. A relative path in
    /// a settings file would be resolved against whatever directory a command (or cron)
    /// happens to run in.
    static func absolutePath(_ text: String) -> String? {
        guard text.hasPrefix("/"), !hasControlCharacter(text) else { return nil }
        return text
    }

    /// `text` when it is a non-empty path without control characters.
    static func path(_ text: String) -> String? {
        guard !text.isEmpty, !hasControlCharacter(text) else { return nil }
        return text
    }
}
