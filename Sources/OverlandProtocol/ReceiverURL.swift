import OverlandJSON

/// Why a url cannot be a receiver's address: one lower-case line that names the part at
/// fault and what is allowed.
public struct ReceiverURLError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// The one check of a receiver's http(s) url, and the port rule every receiver url shares
/// (http, https, mqtt, mqtts). `overland config set endpoint`, `overland destination
/// add/set` (OverlandSettings) and `overland-sync` (OverlandSync) call it, so what the
/// commands accept the sync takes, with the same message when it does not.
public enum ReceiverURL {
    /// The port rule, for messages.
    public static let portRule = "a port is a number from 1 to 65535"

    /// The port written after the host: `""` (none: nil, the scheme's default), `":8080"`.
    /// An empty port (`host:`) is refused: RFC 3986 allows it, but it is nearly always a
    /// port left out by mistake, and the receiver would then be asked on the default port.
    /// The failure is a phrase to follow the url: `has an empty port after ':' (...)`.
    public static func port(afterHost text: Substring) -> Result<Int?, ReceiverURLError> {
        if text.isEmpty { return .success(nil) }
        let digits = text.dropFirst()
        guard text.first == ":" else { return .failure(ReceiverURLError("has '\(printable(text))' after its host: \(portRule)")) }
        guard !digits.isEmpty else { return .failure(ReceiverURLError("has an empty port after ':' (\(portRule))")) }
        guard digits.count <= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(digits),
              (1...65535).contains(number) else {
            return .failure(ReceiverURLError("has port '\(printable(digits))': \(portRule)"))
        }
        return .success(number)
    }

    /// Checks an http or https url as a receiver's endpoint (templates such as `%TS` may
    /// follow the host), throwing `endpoint 'URL' has ...`, the url shown with its secrets
    /// hidden (`RedactedURL`).
    public static func checkHTTP(_ url: String) throws(ReceiverURLError) {
        let lower = url.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") {
            rest = url.dropFirst(8)
        } else if lower.hasPrefix("http://") {
            rest = url.dropFirst(7)
        } else {
            throw ReceiverURLError("endpoint '\(RedactedURL.shown(url))' is not an http:// or https:// url")
        }
        let shown = RedactedURL.shown(url)
        guard !url.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) else {
            throw ReceiverURLError("endpoint '\(shown)' has whitespace or a control character")
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        let afterHost: Substring
        let host: Substring
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { throw ReceiverURLError("endpoint '\(shown)' has an unclosed '['") }
            host = hostPort[hostPort.index(after: hostPort.startIndex)..<close]
            afterHost = hostPort[hostPort.index(after: close)...]
        } else {
            host = hostPort.prefix { $0 != ":" }
            afterHost = hostPort.drop { $0 != ":" }
        }
        guard !host.isEmpty else { throw ReceiverURLError("endpoint '\(shown)' has no host") }
        if case .failure(let problem) = port(afterHost: afterHost) {
            throw ReceiverURLError("endpoint '\(shown)' \(problem)")
        }
    }

    static func printable<Text: StringProtocol>(_ text: Text) -> String {
        String(text.unicodeScalars.prefix(100).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
    }
}
