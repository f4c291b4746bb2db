import OverlandJSON

/// Home Assistant: `GET /api/history/period/START?filter_entity_id=device_tracker.E&end_time=..
/// &significant_changes_only=0` with a long-lived access token (`Authorization: Bearer`),
/// answering `[[{"entity_id":..,"attributes":{"latitude":..,"longitude":..},"last_updated":..},..]]`.
/// `last_updated` is when Home Assistant recorded the state, not the fix's time: points are
/// matched by position, read from the first fix's second to the time of reading.
///
/// Which entity: the one the integration made for this device, found by its device's
/// identifier (`Tracker`), never by a name guessed from the device id. Home Assistant
/// names an entity as it likes: `_2` after a name already taken (a decoy), the device's
/// name before the entity's (MQTT discovery since 2024.2), or the name a user gave it.
/// Before reading, `POST /api/template` asks for the `device_tracker` entities of the
/// integration whose device carries the identifier (the template API needs an
/// administrator's token, as the history of every entity does not).
public struct HomeAssistantReader: ReadBackReader {
    /// The device identifier an integration gives its tracker's device: the OwnTracks
    /// integration `(owntracks, slug(USER_DEVICE))` (owntracks/device_tracker.py), MQTT
    /// discovery `(mqtt, the config's device identifier)`.
    public struct Tracker: Sendable, Equatable {
        public var integration: String
        public var identifier: String

        public init(integration: String, identifier: String) {
            self.integration = integration
            self.identifier = identifier
        }
    }

    public var origin: String
    /// The entity read: before resolution, the id Home Assistant gives when the name is free.
    public var entityID: String
    /// The tracker to resolve before reading; nil once resolved (or for a fixed entity).
    public var tracker: Tracker?
    public var token: String?

    /// The OwnTracks integration's tracker for `user` and `device` (owntracks/messages.py
    /// `_parse_see_args`: `slugify(f"{user}_{device}")`, the entity id and the identifier).
    public init(origin: String, user: String, device: String, token: String?) {
        let slug = Self.slug(user + "_" + device)
        self.init(origin: origin, entityID: "device_tracker." + slug, tracker: Tracker(integration: "owntracks", identifier: slug),
                  token: token)
    }

    /// A reader of the tracker `entityID` (`device_tracker.NAME`), resolved by `tracker` first.
    public init(origin: String, entityID: String, tracker: Tracker? = nil, token: String?) {
        self.origin = origin
        self.entityID = entityID
        self.tracker = tracker
        self.token = token
    }

    public var receiverName: String { "Home Assistant" }
    public var keepsFixTime: Bool { false }
    /// Home Assistant's recorder commits states every `commit_interval` (5 s by default,
    /// later under load: issue 31 saw an immediate read miss 145 of 250 even at 0): six times that.
    public var settleSeconds: Int64 { 30 }

    /// The reader of the OwnTracks integration's tracker for the user and device the
    /// destination sends as (`ReadBackTarget.ownTracksIdentity`), with a long-lived token.
    public static func reader(for target: ReadBackTarget) throws(ReadBackError) -> any ReadBackReader {
        guard let readToken = target.readToken else { throw tokenNeeded }
        let identity = target.ownTracksIdentity
        return HomeAssistantReader(origin: target.base, user: identity.user ?? "", device: identity.device ?? "", token: readToken)
    }

    /// Reading Home Assistant without a token.
    static let tokenNeeded = ReadBackError("Home Assistant is read with a long-lived access token: set verify_token (--token-stdin)")

    public func setupRequest() -> ReceiverRequest? {
        guard let tracker else { return nil }
        var writer = JSONWriter(reservingCapacity: 512)
        writer.appendRaw(#"{"template":"#)
        writer.appendString(Self.template(tracker, guess: entityID))
        writer.appendRaw("}")
        var request = ReceiverRequest(url: origin + "/api/template",
                                      headers: ReadBackHTTP.bearer(token) + [ReceiverRequest.Header("Content-Type", "application/json")],
                                      body: writer.bytes)
        request.replyLimit = 64 << 10
        return request
    }

    /// The template's answer: `{"ours":[entity ids],"taken":[the guessed id, when it exists]}`.
    public func resolved(by reply: HTTPReply) throws(ReadBackError) -> any ReadBackReader {
        guard let tracker else { return self }
        let json = try ReadBackHTTP.json(reply, receiverName)
        guard let ours = json["ours"]?.array?.compactMap(\.string) else {
            throw ReadBackError("\(receiverName)'s answer to the tracker's lookup is not the list asked for")
        }
        guard let found = ours.sorted().first else {
            let guessTaken = !(json["taken"]?.array ?? []).isEmpty
            throw ReadBackError("\(receiverName) has no tracker of the \(tracker.integration) integration for this device "
                                + "(device identifier \(tracker.identifier)) yet"
                                + (guessTaken ? "; \(entityID) is another entity, not read" : ""))
        }
        return HomeAssistantReader(origin: origin, entityID: found, tracker: nil, token: token)
    }

    /// A Jinja template listing the `device_tracker` entities of `tracker.integration`
    /// whose device has the identifier, and whether an entity `guess` exists.
    static func template(_ tracker: Tracker, guess: String) -> String {
        let integration = jinjaString(tracker.integration)
        return "{% set ns = namespace(ours=[]) %}{% for e in integration_entities(\(integration)) %}"
            + "{% if e.startswith('device_tracker.') and (\(integration), \(jinjaString(tracker.identifier))) "
            + "in (device_attr(device_id(e), 'identifiers') or []) %}{% set ns.ours = ns.ours + [e] %}{% endif %}{% endfor %}"
            + "{{ {'ours': ns.ours, 'taken': expand(\(jinjaString(guess))) | map(attribute='entity_id') | list} | tojson }}"
    }

    /// `text` as a single-quoted Jinja string: only letters, digits, `_`, `.` and `-`
    /// survive (identifiers and entity ids are made of them); anything else is dropped.
    static func jinjaString(_ text: String) -> String {
        "'" + String(text.unicodeScalars.filter {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "." || $0 == "-"
        }.map(Character.init)) + "'"
    }

    public func request(from: Int64, through: Int64, page: Int) -> ReceiverRequest {
        ReadBackHTTP.get(origin + "/api/history/period/" + ISO8601UTC.string(from: from),
                         [("filter_entity_id", entityID), ("end_time", ISO8601UTC.string(from: through + 1)),
                          ("significant_changes_only", "0")], headers: ReadBackHTTP.bearer(token))
    }

    public func parse(_ reply: HTTPReply, page: Int) throws(ReadBackError) -> ReadBackPage {
        let json = try ReadBackHTTP.json(reply, receiverName)
        guard let lists = json.array else { throw ReadBackError("\(receiverName)'s answer is not a list of histories") }
        var points: [StoredPoint] = []
        for list in lists {
            for state in list.array ?? [] where state["entity_id"]?.string.map({ $0 == entityID }) ?? true {
                let attributes = state["attributes"]
                if let point = ReadBackHTTP.point(time: state["last_updated"], latitude: attributes?["latitude"],
                                                  longitude: attributes?["longitude"]) {
                    points.append(point)
                }
            }
        }
        return ReadBackPage(points: points)
    }

    /// Home Assistant's `slugify` for ASCII names: lower case, every run of other
    /// characters one `_`, none at either end.
    static func slug(_ text: String) -> String {
        var output = ""
        var pendingSeparator = false
        for scalar in text.lowercased().unicodeScalars {
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                if pendingSeparator, !output.isEmpty { output += "_" }
                pendingSeparator = false
                output.unicodeScalars.append(scalar)
            } else {
                pendingSeparator = true
            }
        }
        return output
    }
}
