import OverlandJSON

/// One key of a destination: what it holds, which protocols take it, how it reads and
/// writes, what it allows. `DestinationKey.all` is the single table behind
/// `destinations.json` and `overland destination set`; its order is the file's order.
///
/// Values are checked as the settings check them (the same `Codec`s and `Validation`
/// rules): a destination's `batch_size` allows what the settings' does.
public struct DestinationKey: Sendable, CustomStringConvertible {
    /// The key, as in the file and on the command line: "batch_size".
    public let name: String
    /// What it does, in one lower-case line.
    public let summary: String
    /// The protocols that take this key; the others refuse it.
    public let protocols: [DestinationProtocol]
    /// The settings key that holds it for the default destination; nil when the default
    /// destination has no such key (it speaks overland).
    public let settingsKey: String?
    let allowedFor: @Sendable (DestinationProtocol) -> String
    let current: @Sendable (Destination) -> JSONValue
    let display: @Sendable (Destination) -> String
    let assign: @Sendable (inout Destination, JSONValue) -> Bool
    let parse: @Sendable (String) -> JSONValue
    let reset: @Sendable (inout Destination) -> Void

    init<Value>(
        _ name: String, _ path: WritableKeyPath<Destination, Value> & Sendable, _ codec: Codec<Value>,
        protocols: [DestinationProtocol] = DestinationProtocol.allCases, settingsKey: String?, _ summary: String
    ) {
        self.name = name
        self.summary = summary
        self.protocols = protocols
        self.settingsKey = settingsKey
        allowedFor = { _ in codec.allowed }
        current = { codec.encode($0[keyPath: path]) }
        display = { codec.format($0[keyPath: path]) }
        assign = { destination, json in
            guard let value = codec.decode(json) else { return false }
            destination[keyPath: path] = value
            return true
        }
        parse = codec.parse
        let fresh = Destination(name: Destination.defaultName, url: "")
        reset = { $0[keyPath: path] = fresh[keyPath: path] }
    }

    /// The url: its form depends on the protocol.
    private init(url summary: String) {
        name = "url"
        self.summary = summary
        protocols = DestinationProtocol.allCases
        settingsKey = "endpoint"
        allowedFor = { Destination.urlAllowed(for: $0) }
        current = { .string($0.url) }
        display = { $0.url }
        assign = { destination, json in
            guard let text = json.string, let valid = Destination.validURL(text, for: destination.wireProtocol) else { return false }
            destination.url = valid
            return true
        }
        parse = { .string($0) }
        reset = { _ in }
    }

    /// What the key allows for `wireProtocol`, as a phrase.
    public func allowed(for wireProtocol: DestinationProtocol) -> String { allowedFor(wireProtocol) }

    /// The value in `destination` as JSON, as the file holds it.
    public func value(in destination: Destination) -> JSONValue { current(destination) }

    /// Whether `wireProtocol` takes this key.
    public func applies(to wireProtocol: DestinationProtocol) -> Bool { protocols.contains(wireProtocol) }

    /// The name.
    public var description: String { name }

    /// "overland only", "mqtt only", "overland and owntracks": who takes the key, for messages.
    public var takenBy: String {
        protocols.count == 1 ? "\(protocols[0]) only" : protocols.map(\.rawValue).joined(separator: ", ")
    }

    /// Every key, in the file's order.
    public static let all: [DestinationKey] = [
        DestinationKey(url: "where points go: an http(s) url, or for mqtt an mqtt:// or mqtts:// broker url"),
        DestinationKey("protocol", \.wireProtocol, .choice(DestinationProtocol.self), settingsKey: "protocol",
                       "the protocol the receiver speaks: overland, owntracks, traccar or mqtt"),
        DestinationKey("profile", \.profile, .choice(ReceiverProfileName.self), settingsKey: "profile",
                       "the receiver's quirks applied when sending (see 'overland config keys')"),
        DestinationKey("token", \.token, .optionalText(allowed: Validation.tokenAllowed, validate: Validation.token),
                       settingsKey: "token", "the access token (overland: bearer; owntracks: user:password; mqtt: the password)"),
        DestinationKey("device_id", \.deviceID,
                       .optionalText(allowed: Validation.deviceIDAllowed, validate: Validation.deviceID),
                       settingsKey: "device_id", "the device id sent in every point; unset: the settings' device id"),
        DestinationKey("batch_size", \.batchSize, .choice(BatchSize.self, asNumber: true), protocols: [.overland],
                       settingsKey: "batch_size", "the most points per request"),
        DestinationKey("logging_mode", \.loggingMode, .choice(LoggingMode.self),
                       settingsKey: "logging_mode", "what is sent: every point, the latest, or the latest as owntracks"),
        DestinationKey("send_interval", \.sendInterval, .intervalChoice(SendInterval.self),
                       settingsKey: "send_interval", "how often waiting points are sent; off never sends"),
        DestinationKey("ca_file", \.caFile,
                       .optionalText(allowed: Validation.absolutePathAllowed, validate: Validation.absolutePath),
                       settingsKey: "ca_file", "a pem file of certificate authorities to trust instead of the system's"),
        DestinationKey("consider_2xx_successful", \.consider2xxSuccessful, .bool, protocols: [.overland],
                       settingsKey: "consider_2xx_successful", "whether any 2xx reply counts as delivered (can lose data)"),
        DestinationKey("topic", \.topic, .optionalText(allowed: Validation.topicAllowed, validate: Validation.topic),
                       protocols: [.mqtt], settingsKey: nil, "the mqtt topic; unset: owntracks/USER/DEVICE"),
        DestinationKey("username", \.username, .optionalText(allowed: Validation.tokenAllowed, validate: Validation.token),
                       protocols: [.mqtt], settingsKey: nil, "the mqtt user name"),
        DestinationKey("discovery", \.discovery, .bool, protocols: [.mqtt], settingsKey: nil,
                       "whether home assistant mqtt discovery messages are published"),
        DestinationKey("keepalive", \.keepalive, .integer(in: 0...65535, allowed: "a whole number of seconds from 0 (off) to 65535"),
                       protocols: [.mqtt], settingsKey: nil, "the mqtt keep-alive in seconds"),
        DestinationKey("protocol_version", \.protocolVersion, .choice(MQTTProtocolVersion.self), protocols: [.mqtt],
                       settingsKey: nil, "the mqtt protocol version"),
    ]

    /// The key called `name`, or an error naming close matches (or every key).
    public init(named name: String) throws(SettingsError) {
        if let key = Self.all.first(where: { $0.name == name }) {
            self = key
            return
        }
        let names = Self.all.map(\.name)
        throw .unknownKey(key: name, section: nil, suggestions: Suggestions.closeMatches(for: name, among: names),
                          allowed: names, location: nil)
    }

    /// The value in `destination` as text ("" when not set). The token is shown in full.
    public func get(from destination: Destination) -> String { display(destination) }

    /// Whether `destination` holds this key's default.
    public func isDefault(in destination: Destination) -> Bool {
        var fresh = destination
        reset(&fresh)
        return name != "url" && name != "protocol" && current(fresh) == current(destination)
    }

    /// Sets the value `text` stands for on a named destination (as `overland destination
    /// set` does): a key the destination's protocol does not take is refused, and so is a
    /// value outside the allowed ones. Changing the protocol puts back the defaults of
    /// the keys the new protocol does not take, and needs a url that suits it.
    public func set(_ text: String, in destination: inout Destination) throws(SettingsError) {
        guard applies(to: destination.wireProtocol) else {
            throw .invalidValue(key: name, value: quoted(text),
                                allowed: "nothing for protocol \(destination.wireProtocol): \(takenBy) takes \(name)", location: nil)
        }
        var changed = destination
        guard assign(&changed, parse(text)) else {
            let shown = name == "url" ? RedactedURL.shown(text) : name == "token" ? Destination.shownToken(text) : text
            throw .invalidValue(key: name, value: quoted(shown), allowed: allowed(for: destination.wireProtocol), location: nil)
        }
        if name == "protocol", changed.wireProtocol != destination.wireProtocol {
            guard Destination.validURL(changed.url, for: changed.wireProtocol) != nil else {
                throw .invalidValue(
                    key: name, value: quoted(text),
                    allowed: "a protocol that suits the url '\(RedactedURL.shown(changed.url))' (protocol \(changed.wireProtocol) takes "
                        + Destination.urlAllowed(for: changed.wireProtocol) + "): remove the destination and add it again", location: nil)
            }
            for key in Self.all where !key.applies(to: changed.wireProtocol) { key.reset(&changed) }
        }
        destination = changed
    }

    /// The keys `destination` holds, in the file's order: those its protocol takes.
    public static func keys(of destination: Destination) -> [DestinationKey] {
        all.filter { $0.applies(to: destination.wireProtocol) }
    }
}

extension Destination {
    /// What a url must be for `wireProtocol`.
    public static func urlAllowed(for wireProtocol: DestinationProtocol) -> String {
        wireProtocol == .mqtt ? "an mqtt:// or mqtts:// url, its port (if any) 1 to 65535" : Validation.endpointAllowed
    }

    /// `text` when it is a url `wireProtocol` can use, nil otherwise.
    public static func validURL(_ text: String, for wireProtocol: DestinationProtocol) -> String? {
        wireProtocol == .mqtt ? Validation.brokerURL(text) : Validation.endpoint(text)
    }

}

extension Validation {
    /// `text` when it is an mqtt:// or mqtts:// url with a host and a port (if any) of 1 to
    /// 65535, without whitespace or control characters.
    static func brokerURL(_ text: String) -> String? {
        let lower = text.lowercased()
        let rest: Substring
        if lower.hasPrefix("mqtts://") {
            rest = text.dropFirst(8)
        } else if lower.hasPrefix("mqtt://") {
            rest = text.dropFirst(7)
        } else {
            return nil
        }
        let host = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !host.isEmpty, !host.hasPrefix(":"), !host.hasSuffix("@"), isPortAcceptable(host) else { return nil }
        guard !text.unicodeScalars.contains(where: { $0.properties.isWhitespace }), !hasControlCharacter(text) else { return nil }
        return text
    }

    static let topicAllowed = "1 to 65535 bytes of text without control characters, '+' or '#'"

    /// `text` when it is an MQTT topic a client may publish to: not empty, at most 65535
    /// bytes, no control characters and no wildcards.
    static func topic(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= 65535, !hasControlCharacter(text),
              !text.contains("+"), !text.contains("#") else { return nil }
        return text
    }
}

extension Destination {
    /// What differs from `other`, key by key in the file's order, as `NAME.KEY: OLD -> NEW`;
    /// the token shown as "set" or "not set", never in part.
    public func differences(from other: Destination) -> [SettingChange] {
        DestinationKey.all.compactMap { key in
            guard key.current(self) != key.current(other) else { return nil }
            var old = key.get(from: other)
            var new = key.get(from: self)
            if key.name == "token" {
                old = Destination.shownToken(other.token)
                new = Destination.shownToken(token)
            } else if key.name == "url" {
                old = RedactedURL.shown(old)
                new = RedactedURL.shown(new)
            }
            return SettingChange(key: "\(name).\(key.name)", old: old, new: new)
        }
    }

    /// A token as shown to people: "set" or "not set", nothing of it.
    public static func shownToken(_ token: String?) -> String {
        (token?.isEmpty ?? true) ? "not set" : "set"
    }
}
