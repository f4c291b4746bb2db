import OverlandJSON

/// A command received on `TOPIC/cmd`, as OwnTracks apps accept them (booklet, "JSON",
/// `_type=cmd`):
///
///     {"_type":"cmd","action":"reportLocation"}
///     {"_type":"cmd","action":"setConfiguration","configuration":{"_type":"configuration","locatorInterval":60}}
///
/// The payload comes from whoever may publish to the topic: it is parsed within `limits`
/// and never trusted. `dump`, `waypoints`, `setWaypoints`, `clearWaypoints`,
/// `reportSteps`, `action` and any other action are `.unsupported`: the caller ignores
/// them with one line.
public enum OwnTracksCommand: Sendable, Equatable {
    /// Publish the newest point now.
    case reportLocation
    /// Apply these configuration values (an object: OwnTracks keys to values).
    case setConfiguration(JSONValue)
    /// An action this device does not carry out, sanitised for printing and cut to 64
    /// characters.
    case unsupported(String)

    /// A command is small; a configuration with a list of waypoints a few kilobytes.
    /// Depth: the command, its configuration, a waypoint list, a waypoint, and some room.
    public static let limits = JSONLimits(maxDepth: 8, maxBytes: 64 << 10, maxStringBytes: 8 << 10)

    /// Reads a command from a `cmd` payload.
    public init(payload: some Collection<UInt8>) throws(OwnTracksCommandError) {
        let json: JSONValue
        do {
            json = try JSONParser.parse(payload, limits: Self.limits)
        } catch {
            throw .invalidJSON(error)
        }
        guard case .object(let members) = json else { throw .notAnObject }
        guard let type = members["_type"]?.string, type == "cmd" else {
            throw .notACommand(found: Self.summary(of: members["_type"]))
        }
        guard let action = members["action"]?.string else { throw .missingAction }
        switch action {
        case "reportLocation":
            self = .reportLocation
        case "setConfiguration":
            guard case .object(let configuration)? = members["configuration"] else { throw .invalidConfiguration }
            if let inner = configuration["_type"], inner.string != "configuration" { throw .invalidConfiguration }
            self = .setConfiguration(.object(configuration))
        default:
            self = .unsupported(Self.shown(action))
        }
    }

    /// Reads a command from a `cmd` payload; the same as `init(payload:)`.
    public static func parse(_ payload: some Collection<UInt8>) throws(OwnTracksCommandError) -> OwnTracksCommand {
        try OwnTracksCommand(payload: payload)
    }

    /// What `_type` holds, as a phrase: `"location"`, `a number`, `missing`.
    static func summary(of value: JSONValue?) -> String {
        switch value {
        case nil: "missing"
        case .null?: "null"
        case .bool?: "a boolean"
        case .number?: "a number"
        case .string(let text)?: "\"" + shown(text) + "\""
        case .array?: "an array"
        case .object?: "an object"
        }
    }

    /// `text` safe to print: unsafe characters as `?`, at most 64 characters.
    static func shown(_ text: String) -> String {
        let safe = PrintableText.sanitised(text, allowLineBreaks: false)
        return safe.count > 64 ? String(safe.prefix(64)) + "..." : safe
    }
}
