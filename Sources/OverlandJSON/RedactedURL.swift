/// The one rule for showing a URL to people (status, lists, dry runs, errors, the state
/// file): the parts where a secret rides are replaced by `<redacted>`, the rest is kept so
/// that the user still recognises the server.
///
/// - the password of the user information (`user:<redacted>@`), all of it when it has no
///   `:` (a token as user name: `<redacted>@`);
/// - every query parameter's value (`?token=…&api_key=…`: `?token=<redacted>&api_key=<redacted>`;
///   a parameter without `=` entirely), but a template's placeholder (`?ts=%TS`);
/// - the fragment (`#<redacted>`);
/// - in the path, a webhook's id (every segment after `webhook`, `webhooks` or `hooks`: Home
///   Assistant's `/api/webhook/ID` is a secret in the path) and any segment that looks like a
///   key (16 or more letters, digits, `-` and `_`, with letters and digits both).
///
/// Scheme, host, port and the other path segments are kept. Control characters are shown as
/// `?` and the result is cut to 200 characters (a URL in a message is there to be recognised).
public enum RedactedURL {
    public static let replacement = "<redacted>"
    static let longest = 200

    /// `url` as shown to people.
    public static func shown(_ url: String) -> String {
        var shown = ""
        for part in parts(of: url) {
            switch part {
            case .kept(let text): shown += text
            case .secret: shown += replacement
            }
        }
        let visible = shown.unicodeScalars.map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "?" : Character($0) }
        return visible.count > longest ? String(visible.prefix(longest - 1)) + "…" : String(visible)
    }

    /// The secrets `url` holds by this rule (its user information, query values, fragment
    /// and secret path segments), as written and percent-decoded: hidden by the caller in
    /// text that may quote the URL (a server's or a library's error).
    public static func secrets(in url: String) -> [String] {
        var secrets: [String] = []
        for case .secret(let text) in parts(of: url) {
            secrets.append(text)
            if let decoded = percentDecoded(text), decoded != text { secrets.append(decoded) }
        }
        return secrets
    }

    enum Part: Equatable {
        case kept(String)
        case secret(String)
    }

    /// `url` cut into what is shown and what is secret, in order.
    static func parts(of url: String) -> [Part] {
        var parts: [Part] = []
        var rest = Substring(url)
        // The fragment, then the query: what follows them is theirs.
        var fragment: Substring?
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest[rest.index(after: hash)...]
            rest = rest[..<hash]
        }
        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        // Scheme and authority.
        if let range = rest.firstRange(of: "://") {
            parts.append(.kept(String(rest[..<range.upperBound])))
            rest = rest[range.upperBound...]
            let authority = rest.prefix { $0 != "/" }
            if let at = authority.lastIndex(of: "@") {
                // `user:password@`: the password; a user name alone may be a token.
                let userInfo = authority[..<at]
                if let colon = userInfo.firstIndex(of: ":") {
                    parts.append(.kept(String(userInfo[...colon])))
                    parts.append(.secret(String(userInfo[userInfo.index(after: colon)...])))
                } else {
                    parts.append(.secret(String(userInfo)))
                }
                parts.append(.kept(String(authority[at...])))
            } else {
                parts.append(.kept(String(authority)))
            }
            rest = rest.dropFirst(authority.count)
        }
        parts += pathParts(rest)
        if let query {
            parts.append(.kept("?"))
            for (index, parameter) in query.split(separator: "&", omittingEmptySubsequences: false).enumerated() {
                if index > 0 { parts.append(.kept("&")) }
                if let equals = parameter.firstIndex(of: "=") {
                    parts.append(.kept(String(parameter[...equals])))
                    let value = parameter[parameter.index(after: equals)...]
                    if isPlaceholder(value) {
                        parts.append(.kept(String(value)))
                    } else if !value.isEmpty {
                        parts.append(.secret(String(value)))
                    }
                } else if !parameter.isEmpty {
                    parts.append(.secret(String(parameter)))
                }
            }
        }
        if let fragment {
            parts.append(.kept("#"))
            if !fragment.isEmpty { parts.append(.secret(String(fragment))) }
        }
        return parts
    }

    /// The path's segments, those after a webhook's name and those that look like keys secret.
    private static func pathParts(_ path: Substring) -> [Part] {
        var parts: [Part] = []
        var afterHook = false
        for (index, segment) in path.split(separator: "/", omittingEmptySubsequences: false).enumerated() {
            if index > 0 { parts.append(.kept("/")) }
            if segment.isEmpty { continue }
            if afterHook || looksLikeKey(segment) {
                parts.append(.secret(String(segment)))
            } else {
                parts.append(.kept(String(segment)))
            }
            if ["webhook", "webhooks", "hooks"].contains(segment.lowercased()) { afterHook = true }
        }
        return parts
    }

    /// A URL template's placeholder (`%TS`, `%LAT`: `%` and two or more capital letters),
    /// which the sync fills in for each point: the template, not a secret.
    private static func isPlaceholder(_ value: Substring) -> Bool {
        value.utf8.count >= 3 && value.utf8.first == UInt8(ascii: "%")
            && value.utf8.dropFirst().allSatisfy { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
    }

    /// 16 or more of letters, digits, `-`, `_` (and `%`-escapes), with letters and digits both:
    /// a generated key, not a word of an API's path.
    private static func looksLikeKey(_ segment: Substring) -> Bool {
        guard segment.utf8.count >= 16 else { return false }
        var letters = false
        var digits = false
        for byte in segment.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): letters = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits = true
            case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "%"), UInt8(ascii: "."), UInt8(ascii: "~"): break
            default: return false
            }
        }
        return letters && digits
    }

    /// `text` with its `%XX` escapes (and `+`, a space in a query) decoded, nil when that is
    /// not UTF-8.
    static func percentDecoded(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
               let high = ASCIIHex.value(utf8[utf8.startIndex]), let low = ASCIIHex.value(utf8[utf8.startIndex + 1]) {
                bytes.append(high << 4 | low)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
