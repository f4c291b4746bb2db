import OverlandJSON

/// A setup link (protocol section 8):
/// `overland://setup?url=<percent-encoded endpoint>&token=<token>&device_id=<id>&unique_id=yes`.
///
/// Parsing is strict: the scheme must be `overland` and the host `setup` (both in any
/// case), there is no fragment (an unencoded `#` in the url would cut it short), every
/// `%` starts a two-digit hex escape, decoded text must be UTF-8, and no parameter may
/// appear twice. A `+` stands for itself, not a space, as in the phone app (Foundation's
/// `URLComponents.queryItems`), so tokens holding `+` survive. An unencoded `&` inside
/// the url ends it: the rest becomes an unknown parameter, which is reported as a warning
/// so that the user can see the cut.
public struct SetupLink: Sendable, Equatable {
    /// The endpoint, an http or https URL (templates allowed).
    public var url: String
    /// The token; nil when the link has none or an empty one.
    public var token: String?
    /// True when the link has `token=` with nothing after it (which clears the token).
    public var emptyToken = false
    /// The device id, checked and trimmed; nil when the link has none.
    public var deviceID: String?
    /// `unique_id=yes|no` (also true|false); nil when the link does not say.
    public var includeUniqueID: Bool?
    /// Parameters that were ignored, as lower-case messages.
    public var warnings: [String]

    /// Parses `link`; surrounding whitespace (from copy and paste) is ignored.
    public init(parsing link: String) throws(SettingsError) {
        var text = Substring(link)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        if text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) {
            throw .invalidSetupLink(reason: "it contains a space or control character (percent-encode it as %20)")
        }
        guard let separator = text.firstRange(of: "://"), text[..<separator.lowerBound].lowercased() == "overland" else {
            throw .invalidSetupLink(reason: "it must start with overland://setup?")
        }
        let rest = text[separator.upperBound...]
        if rest.contains("#") {
            throw .invalidSetupLink(reason: "it has a fragment ('#'); percent-encode '#' inside the url as %23")
        }
        let question = rest.firstIndex(of: "?") ?? rest.endIndex
        let host = rest[..<question].lowercased()
        guard host == "setup" || host == "setup/" else {
            throw .invalidSetupLink(reason: "expected overland://setup?..., not overland://\(rest[..<question])")
        }
        let query = question == rest.endIndex ? Substring() : rest[rest.index(after: question)...]

        var parameters: [String: String] = [:]
        var warnings: [String] = []
        for piece in query.split(separator: "&", omittingEmptySubsequences: true) {
            let equals = piece.firstIndex(of: "=") ?? piece.endIndex
            let name = try Self.percentDecoded(piece[..<equals], parameter: String(piece[..<equals]))
            let value = equals == piece.endIndex ? "" : try Self.percentDecoded(piece[piece.index(after: equals)...], parameter: name)
            guard parameters[name] == nil else {
                throw .invalidSetupLink(reason: "parameter \(quoted(name)) appears twice")
            }
            parameters[name] = value
            if !["url", "token", "device_id", "unique_id"].contains(name) {
                warnings.append("setup link: unknown parameter \(quoted(name)) ignored")
            }
        }

        guard let url = parameters["url"], !url.isEmpty else {
            throw .invalidSetupLink(reason: "it has no url= parameter")
        }
        guard let endpoint = Validation.endpoint(url) else {
            throw .invalidSetupLink(reason: "url \(quoted(RedactedURL.shown(url))) is not \(Validation.endpointAllowed)")
        }
        self.url = endpoint

        if let token = parameters["token"], !token.isEmpty {
            guard let valid = Validation.token(token) else {
                throw .invalidSetupLink(reason: token.allSatisfy(\.isWhitespace)
                    ? "the token is only whitespace" : "the token holds a control character")
            }
            self.token = valid
        } else {
            token = nil
        }
        emptyToken = parameters["token"]?.isEmpty == true

        if let id = parameters["device_id"] {
            guard let valid = Validation.deviceID(id) else {
                throw .invalidSetupLink(reason: "device id \(quoted(id)) is not \(Validation.deviceIDAllowed)")
            }
            deviceID = valid
        } else {
            deviceID = nil
        }

        if let unique = parameters["unique_id"] {
            switch unique.lowercased() {
            case "yes", "true": includeUniqueID = true
            case "no", "false": includeUniqueID = false
            default: throw .invalidSetupLink(reason: "unique_id \(quoted(unique)) is not yes or no")
            }
        } else {
            includeUniqueID = nil
        }
        self.warnings = warnings
    }

    /// Applies the link: endpoint and token always (a link without a token clears the
    /// old one, which must never reach the new server), device id and unique id when the
    /// link names them. Returns what changed, the token redacted.
    @discardableResult
    public func apply(to settings: inout Settings) -> [SettingChange] {
        let old = settings
        settings.endpoint = url
        settings.token = token
        if let deviceID { settings.deviceID = deviceID }
        if let includeUniqueID { settings.includeUniqueID = includeUniqueID }
        return settings.differences(from: old)
    }

    /// `text` with `%XX` escapes decoded; `+` is kept as it is.
    private static func percentDecoded(_ text: Substring, parameter: String) throws(SettingsError) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard utf8.count >= 2, let high = ASCIIHex.value(utf8[utf8.startIndex]), let low = ASCIIHex.value(utf8[utf8.startIndex + 1]) else {
                throw .invalidSetupLink(reason: "parameter \(quoted(parameter)) has a '%' not followed by two hex digits")
            }
            bytes.append(high << 4 | low)
            utf8.removeFirst(2)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw .invalidSetupLink(reason: "parameter \(quoted(parameter)) does not decode to utf-8 text")
        }
        return decoded
    }
}
