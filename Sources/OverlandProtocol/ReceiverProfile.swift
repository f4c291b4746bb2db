/// A receiver's quirks, applied when a request is written, never when a point is logged:
/// the journal keeps every record as logged (full precision), and the profile in force at
/// send time decides what a receiver gets, for old points as much as for new ones.
///
/// A profile only changes how a location Feature's values are written; it never adds or
/// removes points. With `none` the stored lines go out byte for byte as logged.
///
/// The profiles (protocol reference, section 1, "Receivers are strict"):
/// - `none`: the protocol as written (speed and the speed and course accuracies with up
///   to 2 decimals).
/// - `wayfinder`: every number Wayfinder stores as an integer is written as a whole number
///   (rounded half away from zero): `speed`, `speed_accuracy`, `course_accuracy`, and, for
///   records that carry them with a fraction, `altitude`, `course`,
///   `horizontal_accuracy` and `vertical_accuracy`. Wayfinder drops a point whose value
///   has a fraction (34.0 passes, 34.2 does not) and still answers `{"result":"ok"}`, so
///   without this profile points logged with a fractional speed are lost in silence.
///   `-1` (unknown) stays `-1`.
/// - `compass`: the token also travels in the url as `?token=` (percent-encoded), since
///   Compass reads it only from the query string, never from the `Authorization` header;
///   an endpoint that already has a `token` parameter is left as it is. Points go out as
///   stored.
public struct ReceiverProfile: Sendable, Equatable, CustomStringConvertible {
    /// The profile's name, as the `profile` setting spells it.
    public let name: String
    /// The `properties` members written as whole numbers.
    public let wholeNumberProperties: Set<String>
    /// Whether the token is added to the url's query as `token`.
    public let tokenInQuery: Bool

    /// The protocol as written: nothing changes.
    public static let none = ReceiverProfile(name: "none", wholeNumberProperties: [])

    /// Whole numbers wherever Wayfinder stores an integer (see the type's description).
    public static let wayfinder = ReceiverProfile(
        name: "wayfinder",
        wholeNumberProperties: ["speed", "speed_accuracy", "course_accuracy",
                                "altitude", "course", "horizontal_accuracy", "vertical_accuracy"])

    /// The token in the query string, where Compass reads it.
    public static let compass = ReceiverProfile(name: "compass", wholeNumberProperties: [], tokenInQuery: true)

    /// Every profile, by name.
    public static let all: [ReceiverProfile] = [.none, .wayfinder, .compass]

    /// The profile named `name`, or nil.
    public init?(named name: String) {
        guard let found = Self.all.first(where: { $0.name == name }) else { return nil }
        self = found
    }

    private init(name: String, wholeNumberProperties: Set<String>, tokenInQuery: Bool = false) {
        self.name = name
        self.wholeNumberProperties = wholeNumberProperties
        self.tokenInQuery = tokenInQuery
    }

    /// The url a request goes to: `url` with the token added as `token` for a receiver
    /// that reads it there (and has none in the url yet).
    public func url(_ url: String, token: String?) -> String {
        guard tokenInQuery, let token, !token.isEmpty else { return url }
        let query = url.drop { $0 != "?" }.prefix { $0 != "#" }
        if query.dropFirst().split(separator: "&").contains(where: { $0.hasPrefix("token=") }) { return url }
        let fragment = url.drop { $0 != "#" }
        let base = url.dropLast(fragment.count)
        return base + (query.isEmpty ? "?" : "&") + "token=" + URLTemplate.percentEncoded(token) + fragment
    }

    /// The profile to suggest for a receiver at `url`, when its path names the receiver
    /// unambiguously (a path only one receiver uses), with the reason to show; nil when the
    /// url says nothing certain. A suggestion is shown, never applied silently.
    public static func suggested(forURL url: String) -> (profile: ReceiverProfile, reason: String)? {
        let path = Self.path(of: url)
        for (ending, profile, reason) in suggestions where path.hasSuffix(ending) {
            return (profile, reason)
        }
        return nil
    }

    /// Path endings that identify a receiver, each with its profile and why.
    private static let suggestions: [(String, ReceiverProfile, String)] = [
        ("/api/input", .compass, "Compass receives Overland points at /api/input and reads the token only from the query string"),
    ]

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
