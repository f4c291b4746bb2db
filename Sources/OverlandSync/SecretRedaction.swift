import OverlandJSON

/// Hides a secret (the token) in text a server chose: an error body, a redirect, a place
/// name, a `set` value. Not only an exact copy is hidden: any run of 4 or more characters
/// that appears in the secret is, so that a copy cut short ("…", "..."), padded, split or
/// starting mid-token shows no more than 3 of its characters in a row. A secret shorter
/// than 4 characters is left (it would garble every message).
public enum SecretRedaction {
    public static let shortestRun = 4
    public static let replacement = "<redacted>"

    /// `text` with every run of at least `shortestRun` characters found in one of
    /// `secrets` replaced by `<redacted>` (one per run). Linear in the text's length times
    /// the secret's: meant for messages, which are cut to a few hundred characters.
    public static func hiding(_ secrets: [String], in text: String) -> String {
        let secrets = secrets.filter { $0.count >= shortestRun }.map { Array($0.unicodeScalars) }
        guard !secrets.isEmpty else { return text }
        let scalars = Array(text.unicodeScalars)
        var result = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let run = secrets.map { longestRun(in: scalars, at: index, within: $0) }.max() ?? 0
            if run >= shortestRun {
                result.append(contentsOf: replacement.unicodeScalars)
                index += run
            } else {
                result.append(scalars[index])
                index += 1
            }
        }
        return String(result)
    }

    /// `text` (a server's or a library's message, a saved error) with a destination's
    /// secrets hidden: every copy of `url` as `RedactedURL` shows it, then every run of 4 or
    /// more characters of `token`, of `others` (its other forms, such as Basic credentials)
    /// and of the secrets `RedactedURL` finds in `url` (query values, user information,
    /// fragment, a webhook id).
    public static func hiding(url: String, token: String?, others: [String] = [], in text: String) -> String {
        let secrets = (token.map { [$0] } ?? []) + others + RedactedURL.secrets(in: url)
        guard !url.isEmpty else { return hiding(secrets, in: text) }
        // The url's copies are shown whole; the runs are hidden in the text around them.
        return text.split(separator: url, omittingEmptySubsequences: false)
            .map { hiding(secrets, in: String($0)) }
            .joined(separator: RedactedURL.shown(url))
    }

    /// The length of the longest prefix of `text[start...]` that occurs in `secret`.
    private static func longestRun(in text: [Unicode.Scalar], at start: Int, within secret: [Unicode.Scalar]) -> Int {
        var best = 0
        for origin in secret.indices {
            var length = 0
            while start + length < text.count, origin + length < secret.count, text[start + length] == secret[origin + length] {
                length += 1
            }
            best = max(best, length)
        }
        return best
    }
}
