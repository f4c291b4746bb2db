/// A receiver's quirks, applied when a request is written, never when a point is logged:
/// the journal keeps every record as logged (full precision), and the profile in force at
/// send time decides what a receiver gets, for old points as much as for new ones.
///
/// A profile only changes how a request is written (values, url, headers, topic); it
/// never adds or removes points. With `none` the stored lines go out byte for byte as
/// logged.
///
/// The profiles (protocol reference, section 1, "Receivers are strict"; docs/receivers.md):
/// - `none`: the protocol as written. Fits every protocol.
/// - `wayfinder` (overland): every number Wayfinder stores as an integer is written as a
///   whole number (rounded half away from zero; a known accuracy at least 1): `speed`, `speed_accuracy`,
///   `course_accuracy`, and, for records that carry them with a fraction, `altitude`,
///   `course`, `horizontal_accuracy` and `vertical_accuracy`. Wayfinder drops a point
///   whose value has a fraction (34.0 passes, 34.2 does not) and still answers
///   `{"result":"ok"}`, so without this profile such points are lost in silence. `-1`
///   (unknown) stays `-1`.
/// - `compass` (overland): the token also travels in the url as `?token=`
///   (percent-encoded), since Compass reads it only from the query string, never from the
///   `Authorization` header; an endpoint that already has a `token` parameter is left as
///   it is. Points go out as stored.
/// - `dawarich` (overland, owntracks): the token is Dawarich's API key and travels as
///   `?api_key=`, where Dawarich documents it for its Overland endpoint
///   (`/api/v1/overland/batches?api_key=KEY`) and its OwnTracks endpoint
///   (`/api/v1/owntracks/points?api_key=KEY`); no `Authorization` header is sent, since
///   an OwnTracks Basic header would carry the key as a wrong credential. Dawarich
///   answers 201 with `{"result":"ok"}` to Overland batches, which acknowledges.
/// - `home-assistant` (owntracks): the message's `topic` is always
///   `owntracks/USER/DEVICE`. Home Assistant's OwnTracks webhook (`/api/webhook/ID`)
///   takes the topic from the message, else builds it from `X-Limit-U` and `X-Limit-D`,
///   and splits it into user and device; a topic without both (`owntracks/van`, from a
///   device id without `/`) fails there while the webhook still answers 200 `[]`: the
///   point is lost in silence. A device id without a user part is completed with the
///   Basic user, else with the device name itself (`owntracks/van/van`). The webhook
///   takes no credentials (its id is the secret). Home Assistant also ignores a location
///   without `acc` or with `acc` 0: a point of unknown accuracy does not move its tracker.
/// - `owntracks-recorder` (owntracks): OwnTracks Recorder's HTTP endpoint (`/pub`) files
///   a message under the user and device named by `X-Limit-U` and `X-Limit-D`, or the
///   query parameters `u` and `d`; this profile sends both (the query survives proxies
///   that drop or overwrite `X-` headers), completing a missing user as
///   `home-assistant` does, with HTTP Basic authentication from a `user:password` token.
public struct ReceiverProfile: Sendable, Hashable, CustomStringConvertible {
    /// The profile's name, as the `profile` setting spells it: what identifies it.
    public let name: String
    /// The `properties` members written as whole numbers.
    public let wholeNumberProperties: Set<String>
    /// The query parameter the token is added as (`token`, `api_key`), nil for none.
    public let tokenParameter: String?
    /// Whether the token also goes in the `Authorization` header (as the protocol sends it).
    public let tokenInHeader: Bool
    /// Whether an OwnTracks message's user and device are completed (`owntracks/USER/DEVICE`).
    public let completesIdentity: Bool
    /// Whether the OwnTracks user and device are added to the query as `u` and `d`.
    public let identityInQuery: Bool
    /// The protocols this profile makes sense with.
    public let protocols: Set<WireProtocol>
    /// Whether and how its receiver is read back (`ReadBackSupport`): its reader, or why
    /// it has none; `none` leaves it to the protocol.
    public let readBack: ReadBackCapability

    /// The protocol as written: nothing changes.
    public static let none = ReceiverProfile(name: "none", protocols: Set(WireProtocol.allCases), readBack: .deferred)

    /// Whole numbers wherever Wayfinder stores an integer (see the type's description).
    public static let wayfinder = ReceiverProfile(
        name: "wayfinder",
        wholeNumberProperties: ["speed", "speed_accuracy", "course_accuracy",
                                "altitude", "course", "horizontal_accuracy", "vertical_accuracy"],
        protocols: [.overland],
        readBack: .unreadable("Wayfinder has no API that lists the points it holds, so verify cannot be on for it (see docs/receivers.md)"))

    /// The token in the query string, where Compass reads it.
    public static let compass = ReceiverProfile(name: "compass", tokenParameter: "token", protocols: [.overland],
                                                readBack: .reads(CompassReader.reader(for:)))

    /// The token as Dawarich's `api_key` query parameter.
    public static let dawarich = ReceiverProfile(name: "dawarich", tokenParameter: "api_key", tokenInHeader: false,
                                                 protocols: [.overland, .owntracks], readBack: .reads(DawarichReader.reader(for:)))

    /// A complete `owntracks/USER/DEVICE` topic, as Home Assistant's webhook needs.
    public static let homeAssistant = ReceiverProfile(name: "home-assistant", completesIdentity: true, protocols: [.owntracks],
                                                      readBack: .reads(HomeAssistantReader.reader(for:)))

    /// User and device in the headers and the query, as OwnTracks Recorder's `/pub` reads them.
    public static let owntracksRecorder = ReceiverProfile(name: "owntracks-recorder", completesIdentity: true,
                                                          identityInQuery: true, protocols: [.owntracks],
                                                          readBack: .reads(RecorderReader.reader(for:)))

    /// Every profile, by name.
    public static let all: [ReceiverProfile] = [.none, .wayfinder, .compass, .dawarich, .homeAssistant, .owntracksRecorder]

    /// The profile named `name`, or nil.
    public init?(named name: String) {
        guard let found = Self.all.first(where: { $0.name == name }) else { return nil }
        self = found
    }

    private init(name: String, wholeNumberProperties: Set<String> = [], tokenParameter: String? = nil,
                 tokenInHeader: Bool = true, completesIdentity: Bool = false, identityInQuery: Bool = false,
                 protocols: Set<WireProtocol>, readBack: ReadBackCapability) {
        self.name = name
        self.wholeNumberProperties = wholeNumberProperties
        self.tokenParameter = tokenParameter
        self.tokenInHeader = tokenInHeader
        self.completesIdentity = completesIdentity
        self.identityInQuery = identityInQuery
        self.protocols = protocols
        self.readBack = readBack
    }

    public static func == (lhs: ReceiverProfile, rhs: ReceiverProfile) -> Bool { lhs.name == rhs.name }

    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// Whether this profile makes sense with `wireProtocol`.
    public func fits(_ wireProtocol: WireProtocol) -> Bool { protocols.contains(wireProtocol) }

    /// One line refusing this profile with `wireProtocol`, or nil when they fit.
    public func refusal(for wireProtocol: WireProtocol) -> String? {
        guard !fits(wireProtocol) else { return nil }
        let fitting = WireProtocol.allCases.filter(fits).map(\.rawValue).joined(separator: " or ")
        return "profile \(name) does not fit protocol \(wireProtocol): it is for protocol \(fitting)"
    }

    /// The url a request goes to: `url` with the token added as the profile's token
    /// parameter, and the OwnTracks user and device as `u` and `d`, where the profile
    /// asks for them and the url has no such parameter yet.
    public func url(_ url: String, token: String?, identity: OwnTracksIdentity? = nil) -> String {
        var parameters: [(String, String)] = []
        if let tokenParameter, let token, !token.isEmpty { parameters.append((tokenParameter, token)) }
        if identityInQuery, let identity {
            if let user = identity.user { parameters.append(("u", user)) }
            if let device = identity.device { parameters.append(("d", device)) }
        }
        var result = url
        for (name, value) in parameters { result = Self.adding(name, value, to: result) }
        return result
    }

    /// `url` with `name=value` added to its query (percent-encoded), unless it has `name` already.
    private static func adding(_ name: String, _ value: String, to url: String) -> String {
        let query = url.drop { $0 != "?" }.prefix { $0 != "#" }
        if query.dropFirst().split(separator: "&").contains(where: { $0.hasPrefix(name + "=") }) { return url }
        let fragment = url.drop { $0 != "#" }
        let base = url.dropLast(fragment.count)
        return base + (query.isEmpty ? "?" : "&") + name + "=" + URLTemplate.percentEncoded(value) + fragment
    }

    /// The OwnTracks identity sent: `identity`, completed to a user and a device (the user
    /// being the device name when nothing else names one) for receivers that need both.
    public func ownTracksIdentity(_ identity: OwnTracksIdentity) -> OwnTracksIdentity {
        guard completesIdentity, let device = identity.device else { return identity }
        var completed = identity
        let user = identity.user ?? device
        completed.user = user
        completed.topic = "owntracks/\(user)/\(device)"
        return completed
    }

    /// The profile to suggest for a receiver at `url`, when its path names the receiver
    /// unambiguously (a path only one receiver uses), with the reason to show; nil when the
    /// url says nothing certain. A suggestion is shown, never applied silently.
    public static func suggested(forURL url: String) -> (profile: ReceiverProfile, reason: String)? {
        let path = Self.path(of: url)
        for suggestion in suggestions where suggestion.matches(path) {
            return (suggestion.profile, suggestion.reason)
        }
        return nil
    }

    private struct Suggestion: Sendable {
        var matches: @Sendable (String) -> Bool
        var profile: ReceiverProfile
        var reason: String

        init(ending: String, _ profile: ReceiverProfile, _ reason: String) {
            matches = { $0.hasSuffix(ending) }
            self.profile = profile
            self.reason = reason
        }

        init(matching: @escaping @Sendable (String) -> Bool, _ profile: ReceiverProfile, _ reason: String) {
            matches = matching
            self.profile = profile
            self.reason = reason
        }
    }

    /// Paths that identify a receiver, each with its profile and why. Generic endings
    /// (`/overland`, `/api/locations`, `/owntracks`) name no one receiver and are left out.
    private static let suggestions: [Suggestion] = [
        Suggestion(ending: "/api/input", .compass,
                   "Compass receives Overland points at /api/input and reads the token only from the query string"),
        Suggestion(ending: "/api/v1/overland/batches", .dawarich,
                   "Dawarich receives Overland batches at /api/v1/overland/batches and takes its API key as ?api_key="),
        Suggestion(ending: "/api/v1/owntracks/points", .dawarich,
                   "Dawarich receives OwnTracks points at /api/v1/owntracks/points and takes its API key as ?api_key="),
        Suggestion(matching: { isHomeAssistantWebhook($0) }, .homeAssistant,
                   "Home Assistant receives OwnTracks messages at /api/webhook/ID (protocol owntracks) and needs a topic naming user and device"),
        Suggestion(ending: "/api/wayfinder/overland", .wayfinder,
                   "Wayfinder receives Overland batches at /api/wayfinder/overland/ and drops, while answering ok, any point whose speed, accuracy, altitude or course has a fraction"),
        Suggestion(ending: "/pub", .owntracksRecorder,
                   "OwnTracks Recorder receives OwnTracks messages at /pub (protocol owntracks) and files them under the user and device it is given"),
    ]

    /// `/api/webhook/ID`, one segment after `webhook`.
    private static func isHomeAssistantWebhook(_ path: String) -> Bool {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count >= 4, !segments[segments.count - 1].isEmpty else { return false }
        return segments[segments.count - 3] == "api" && segments[segments.count - 2] == "webhook"
    }

    /// The url's path without a trailing slash, in lower case.
    private static func path(of url: String) -> String {
        var rest = Substring(url.lowercased()).prefix { $0 != "?" && $0 != "#" }
        if let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") { rest = rest[colon...].dropFirst(3) }
        var path = rest.drop { $0 != "/" }
        while path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }

    /// Whether lines go out as stored.
    public var changesNothing: Bool { wholeNumberProperties.isEmpty }

    public var description: String { name }

    /// Appends one stored record line to `output` as this receiver wants it.
    public func write(_ line: ArraySlice<UInt8>, to output: inout [UInt8]) {
        if changesNothing {
            output.append(contentsOf: line)
        } else {
            FeatureLineRewriter(wholeNumbers: wholeNumberProperties).write(line, to: &output)
        }
    }
}
