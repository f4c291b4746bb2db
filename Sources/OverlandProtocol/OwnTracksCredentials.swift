/// HTTP Basic credentials for an OwnTracks receiver, from a token written `user:password`.
///
/// The phone app sends `Basic <token>:` without base64, which no receiver accepts; this is
/// real RFC 7617 Basic authentication. A token without a colon is the user name, with an
/// empty password.
public struct OwnTracksCredentials: Sendable, Equatable {
    /// The user name: the token up to its first colon.
    public var user: String
    /// The password: the token after its first colon, or "".
    public var password: String

    /// Splits `token` at its first colon.
    public init(token: String) {
        if let colon = token.firstIndex(of: ":") {
            user = String(token[..<colon])
            password = String(token[token.index(after: colon)...])
        } else {
            user = token
            password = ""
        }
    }

    /// The `Authorization` header value: `Basic ` and the base64 of `user:password` (UTF-8).
    public var authorizationHeader: String {
        "Basic " + Self.base64(Array((user + ":" + password).utf8))
    }

    /// Standard base64 (RFC 4648, with padding).
    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let b0 = UInt32(bytes[index])
            let b1 = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            output.append(remaining > 1 ? alphabet[Int(group >> 6 & 0x3F)] : UInt8(ascii: "="))
            output.append(remaining > 2 ? alphabet[Int(group & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }
}
