import OverlandJSON
import OverlandProtocol

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
    public let protocols: [WireProtocol]
    /// The settings key that holds it for the default destination; nil when the default
    /// destination has no such key (it speaks overland).
    public let settingsKey: String?
    let allowedFor: @Sendable (WireProtocol) -> String
    let current: @Sendable (Destination) -> JSONValue
    let display: @Sendable (Destination) -> String
    let assign: @Sendable (inout Destination, JSONValue) -> Bool
    let parse: @Sendable (String) -> JSONValue
    let reset: @Sendable (inout Destination) -> Void
    /// The message of the check the sync itself runs on this key's text (a receiver url,
    /// an MQTT topic), or nil when it passes or the key has none: `set` then refuses the
    /// value with the sync's own words.
    var refusal: @Sendable (String, Destination) -> String? = { _, _ in nil }

    init<Value>(
        _ name: String, _ path: WritableKeyPath<Destination, Value> & Sendable, _ codec: Codec<Value>,
        protocols: [WireProtocol] = WireProtocol.allCases, settingsKey: String?, _ summary: String
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
        protocols = WireProtocol.allCases
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
        refusal = { text, destination in Destination.urlProblem(text, for: destination.wireProtocol) }
    }

    /// This key, with `refusal` as the check of its text.
    func refusing(_ refusal: @escaping @Sendable (String, Destination) -> String?) -> DestinationKey {
        var key = self
        key.refusal = refusal
        return key
    }

    /// What the key allows for `wireProtocol`, as a phrase.
    public func allowed(for wireProtocol: WireProtocol) -> String { allowedFor(wireProtocol) }

    /// The value in `destination` as JSON, as the file holds it.
    public func value(in destination: Destination) -> JSONValue { current(destination) }

    /// Whether `wireProtocol` takes this key.
    public func applies(to wireProtocol: WireProtocol) -> Bool { protocols.contains(wireProtocol) }

    /// The name.
    public var description: String { name }

    /// "overland only", "mqtt only", "overland and owntracks": who takes the key, for messages.
    public var takenBy: String {
        protocols.count == 1 ? "\(protocols[0]) only" : protocols.map(\.rawValue).joined(separator: ", ")
    }

    /// Every key, in the file's order.
    public static let all: [DestinationKey] = [
        DestinationKey(url: "where points go: an http(s) url, or for mqtt an mqtt:// or mqtts:// broker url"),
        DestinationKey("protocol", \.wireProtocol, .choice(WireProtocol.self), settingsKey: "protocol",
                       "the protocol the receiver speaks: " + WireProtocol.allCases.map(\.name).dropLast().joined(separator: ", ")
                           + " or " + (WireProtocol.allCases.last?.name ?? "")),
        DestinationKey("profile", \.profile, .choice(ReceiverProfile.self), settingsKey: "profile",
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
                       protocols: [.mqtt], settingsKey: nil, "the mqtt topic; unset: owntracks/USER/DEVICE")
            .refusing { text, _ in Validation.topicProblem(text) },
        DestinationKey("username", \.username, .optionalText(allowed: Validation.tokenAllowed, validate: Validation.token),
                       protocols: [.mqtt], settingsKey: nil, "the mqtt user name"),
        DestinationKey("discovery", \.discovery, .bool, protocols: [.mqtt], settingsKey: nil,
                       "whether home assistant mqtt discovery messages are published"),
        DestinationKey("keepalive", \.keepalive, .integer(in: 0...65535, allowed: "a whole number of seconds from 0 (off) to 65535"),
                       protocols: [.mqtt], settingsKey: nil, "the mqtt keep-alive in seconds"),
        DestinationKey("protocol_version", \.protocolVersion, .choice(MQTTProtocolVersion.self), protocols: [.mqtt],
                       settingsKey: nil, "the mqtt protocol version"),
        DestinationKey("pub_retain", \.pubRetain, .bool, protocols: [.mqtt], settingsKey: nil,
                       "whether location messages are published retained, as the owntracks apps' pubRetain (default true)"),
        DestinationKey("commands", \.commands, .choice(RemoteCommands.self), protocols: [.mqtt], settingsKey: nil,
                       "which commands on TOPIC/cmd are obeyed: none, report (reportLocation; default) or all (also setConfiguration)"),
        DestinationKey("resend_rate", \.resendRate, .integer(in: 1...1000, allowed: "a whole number of points a second from 1 to 1000"),
                       protocols: [.mqtt], settingsKey: nil,
                       "points a second read-back sends again through the broker (default 10; the owntracks recorder takes about 20)"),
        DestinationKey("verify", \.verify, .bool, settingsKey: "verify",
                       "whether each run reads back what the receiver stored and sends missing points again"),
        DestinationKey("verify_url", \.verifyURL, .optionalText(allowed: Validation.endpointAllowed, validate: Validation.endpoint),
                       settingsKey: "verify_url", "where reading back asks; unset: derived from the url (mqtt: required, the recorder or home assistant)"),
        DestinationKey("verify_token", \.verifyToken, .optionalText(allowed: Validation.tokenAllowed, validate: Validation.token),
                       settingsKey: "verify_token", "the credentials for reading back when they differ from the token"),
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
    /// the keys the new protocol does not take, and needs a url that suits it. What the
    /// sync would refuse of the result (`Destination.problems`, with `settings` for the
    /// device id it inherits) is refused here first, in the sync's words.
    public func set(_ text: String, in destination: inout Destination, settings: Settings) throws(SettingsError) {
        guard applies(to: destination.wireProtocol) else {
            throw .invalidValue(key: name, value: RefusedValue.shown(key: name, text: text),
                                allowed: "nothing for protocol \(destination.wireProtocol): \(takenBy) takes \(name)", location: nil)
        }
        if let refused = refusal(text, destination) { throw .refusedValue(reason: refused) }
        var changed = destination
        guard assign(&changed, parse(text)) else {
            throw .invalidValue(key: name, value: RefusedValue.shown(key: name, text: text), allowed: allowed(for: destination.wireProtocol),
                                location: nil)
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
        if let problem = changed.newProblem(since: destination, settings: settings) { throw .refusedValue(reason: problem) }
        destination = changed
    }

    /// The keys `destination` holds, in the file's order: those its protocol takes.
    public static func keys(of destination: Destination) -> [DestinationKey] {
        all.filter { $0.applies(to: destination.wireProtocol) }
    }
}

extension Destination {
    /// What a url must be for `wireProtocol`.
    public static func urlAllowed(for wireProtocol: WireProtocol) -> String {
        viaBroker(wireProtocol) ? "an mqtt:// or mqtts:// url, its port (if any) 1 to 65535" : Validation.endpointAllowed
    }

    /// `text` when it is a url `wireProtocol` can use, nil otherwise.
    public static func validURL(_ text: String, for wireProtocol: WireProtocol) -> String? {
        urlProblem(text, for: wireProtocol) == nil ? text : nil
    }

    /// Why `text` is not a url `wireProtocol` can use, in the sync's own words (the same
    /// checks: `MQTTBrokerURL` for mqtt, `ReceiverURL.checkHTTP` for the others), or nil.
    public static func urlProblem(_ text: String, for wireProtocol: WireProtocol) -> String? {
        do {
            if viaBroker(wireProtocol) { _ = try MQTTBrokerURL(parsing: text) } else { try ReceiverURL.checkHTTP(text) }
            return nil
        } catch {
            return error.description
        }
    }

    /// Whether `wireProtocol`'s points go through an MQTT broker (`Receivers.table`).
    private static func viaBroker(_ wireProtocol: WireProtocol) -> Bool {
        !(Receivers.kind(of: wireProtocol)?.carrier.isHTTP ?? true)
    }
}

extension Validation {
    static let topicAllowed = "1 to \(OwnTracksTopic.maximumBytes) bytes of levels separated by '/', without '+', '#', empty levels, control characters or a leading '$'"

    /// `text` when it is an MQTT topic the sender publishes to (`OwnTracksTopic`).
    static func topic(_ text: String) -> String? {
        topicProblem(text) == nil ? text : nil
    }

    /// The sender's own message for a topic it refuses, or nil.
    static func topicProblem(_ text: String) -> String? {
        do {
            _ = try OwnTracksTopic(validating: text)
            return nil
        } catch {
            return error.description
        }
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
            if SettingKey.isSecret(key.name) {
                old = Destination.shownToken(key.get(from: other))
                new = Destination.shownToken(key.get(from: self))
            } else if SettingKey.holdsURL(key.name) {
                old = old.isEmpty ? "" : RedactedURL.shown(old)
                new = new.isEmpty ? "" : RedactedURL.shown(new)
            }
            return SettingChange(key: "\(name).\(key.name)", old: old, new: new)
        }
    }

    /// A token as shown to people: "set" or "not set", nothing of it.
    public static func shownToken(_ token: String?) -> String {
        (token?.isEmpty ?? true) ? "not set" : "set"
    }
}
