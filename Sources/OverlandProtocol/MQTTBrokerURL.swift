import OverlandJSON

/// A broker's address from a destination url: `mqtt://HOST[:PORT]` (plain TCP, port 1883)
/// or `mqtts://HOST[:PORT]` (TLS, port 8883). An IPv6 address is written in brackets.
/// Credentials do not ride in the url (they would be printed with it): the user name is the
/// destination's `username`, the password its `token`.
///
/// The one check of a broker url: `overland destination add/set` (OverlandSettings) and
/// the MQTT sender (OverlandMQTT) both parse with it, so both refuse the same urls with the
/// same message.
public struct MQTTBrokerURL: Sendable, Equatable, CustomStringConvertible {
    /// The host name or address, without brackets.
    public var host: String
    public var port: Int
    /// `mqtts://`: TLS, the server's certificate and name verified.
    public var usesTLS: Bool

    /// Parses `text`, or throws `.configuration` naming what is wrong.
    public init(parsing text: String) throws(ReceiverURLError) {
        let allowed = "an mqtt:// or mqtts:// url (mqtt://HOST[:PORT])"
        let shown = RedactedURL.shown(text)
        let lower = text.lowercased()
        let rest: Substring
        if lower.hasPrefix("mqtts://") {
            usesTLS = true
            rest = text.dropFirst(8)
        } else if lower.hasPrefix("mqtt://") {
            usesTLS = false
            rest = text.dropFirst(7)
        } else {
            throw ReceiverURLError("broker url '\(shown)' is not \(allowed)")
        }
        var authority = rest
        if let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            authority = rest[..<slash]
            guard rest[slash...] == "/" else {
                throw ReceiverURLError("broker url '\(shown)' has a path or query: \(allowed); the topic is the 'topic' setting")
            }
        }
        guard !authority.contains("@") else {
            throw ReceiverURLError("broker url '\(shown)' carries credentials: set 'username', and the password as 'token'")
        }
        let portText: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw ReceiverURLError("broker url '\(shown)' has an unclosed '['") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            portText = authority[authority.index(after: close)...]
        } else {
            let colon = authority.firstIndex(of: ":") ?? authority.endIndex
            host = String(authority[..<colon])
            portText = authority[colon...]
        }
        guard !host.isEmpty else { throw ReceiverURLError("broker url '\(shown)' has no host") }
        guard host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "%") }) else {
            throw ReceiverURLError("broker url '\(shown)' has a host with characters a host name cannot hold")
        }
        switch ReceiverURL.port(afterHost: portText) {
        case .success(let number): port = number ?? (usesTLS ? 8883 : 1883)
        case .failure(let problem): throw ReceiverURLError("broker url '\(shown)' \(problem)")
        }
    }

    /// `HOST:PORT` (`[::1]:1883` for IPv6), for messages.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

extension WireProtocol {
    /// OwnTracks messages through an MQTT broker; the PUBACK of a QoS 1 publish acknowledges
    /// (the sender is OverlandMQTT's).
    public static let mqtt = WireProtocol(declaring: "mqtt")
}
