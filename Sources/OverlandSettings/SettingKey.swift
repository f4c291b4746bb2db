import OverlandJSON
import OverlandProtocol

/// One setting by name, as `overland config get|set|unset` names it.
///
/// Names follow the protocol's `set`: top-level keys as they are (`send_interval`,
/// `endpoint`), the main profile's keys bare (`logging_mode`; `main.logging_mode` is
/// accepted too), the trip profile's with `trip.` (`trip.logging_mode`), and the wifi
/// zone as a whole (`wifi_zone`, value `SSID,LATITUDE,LONGITUDE`) or by member
/// (`wifi_zone.ssid`). Keys of the main profile only (`tracking_mode`...) do not exist
/// under `trip.`, and `trip.prevent_screen_lock` has no main counterpart.
public struct SettingKey: Sendable, Hashable, CustomStringConvertible {
    let index: Int

    var field: Field { Field.all[index] }

    /// Every key, in the file's order; the wifi zone's members come last.
    public static let all: [SettingKey] = Field.all.indices.map(SettingKey.init(index:))

    private init(index: Int) {
        self.index = index
    }

    /// The key called `name`, or an error naming close matches (or every key when none is close).
    public init(named name: String) throws(SettingsError) {
        let isMainAlias = name.hasPrefix("main.")
        let wanted = isMainAlias ? String(name.dropFirst(5)) : name
        if let index = Field.all.firstIndex(where: { $0.name == wanted && (!isMainAlias || $0.section == .main) }) {
            self.init(index: index)
            return
        }
        let names = Self.all.map(\.name)
        var suggestions = Suggestions.closeMatches(for: wanted, among: names)
        // "trip.tracking_mode": the key exists, but only for the main profile.
        if wanted.hasPrefix("trip."), let main = Field.field(in: .main, key: String(wanted.dropFirst(5))) {
            suggestions = [main.name]
        }
        throw .unknownKey(key: name, section: nil, suggestions: suggestions, allowed: names, location: nil)
    }

    /// The dotted name: "send_interval", "logging_mode", "trip.logging_mode", "wifi_zone.ssid".
    public var name: String { field.name }

    /// What the setting does, in one lower-case line.
    public var summary: String { field.summary }

    /// The values `set` accepts, as a phrase: "all, latest, owntracks".
    public var allowedValues: String { field.allowed }

    /// The default, as `get` would show it ("" for none).
    public var defaultValue: String { field.display(.defaults) }

    /// The name.
    public var description: String { name }

    /// The value in `settings` as text; "" when not set. The token is shown in full.
    public func get(from settings: Settings) -> String {
        field.display(settings)
    }

    /// Sets the value `text` stands for: a choice as the protocol spells it (any case),
    /// a number in decimal (`500`), a Boolean as true/false, on/off or yes/no.
    public func set(_ text: String, in settings: inout Settings) throws(SettingsError) {
        if field.section == .wifiZone && settings.wifiZone == nil {
            throw .invalidValue(
                key: name, value: quoted(text),
                allowed: "nothing until a zone exists: first set wifi_zone to SSID,LATITUDE,LONGITUDE", location: nil)
        }
        // The sync's own words for an endpoint it cannot use (an empty port, no host), as
        // `destination add` says them, rather than the list of what is allowed.
        if name == "endpoint", !text.isEmpty, Validation.endpoint(text) == nil,
           let problem = Destination.urlProblem(text, for: .overland) {
            throw .refusedValue(reason: problem)
        }
        var changed = settings
        guard field.assign(&changed, field.parse(text)) else {
            throw .invalidValue(key: name, value: quoted(shown(text)), allowed: field.allowed, location: nil)
        }
        // What the sync would refuse of the default destination, refused here first.
        if let problem = Destination.newProblem(settingsFrom: settings, to: changed, named: []) {
            throw .refusedValue(reason: problem)
        }
        settings = changed
    }

    /// Puts the default back. A wifi zone is all three members or none: unsetting any
    /// of them removes the zone.
    public func unset(in settings: inout Settings) {
        field.reset(&settings)
    }

    /// Whether `settings` holds the default for this key.
    public func isDefault(in settings: Settings) -> Bool {
        field.isDefault(in: settings)
    }

    /// Every key with its value in `settings`, in the file's order, as shown to people
    /// (`shown(_:)`: the token and the endpoint's secrets redacted). The wifi zone appears once, as `wifi_zone`.
    public static func list(_ settings: Settings) -> [SettingEntry] {
        all.filter { $0.field.section != .wifiZone }.map { key in
            SettingEntry(key: key, value: key.shown(key.get(from: settings)), isDefault: key.isDefault(in: settings))
        }
    }

    /// `value`, this key's, as shown to people: the token as "••••" (`redactedToken(_:)`),
    /// a url without its secrets (`RedactedURL`: a token may ride in its query or path),
    /// every other value as it is.
    public func shown(_ value: String) -> String {
        switch name {
        case _ where Self.isSecret(name): Self.redactedToken(value)
        case _ where Self.holdsURL(name): value.isEmpty ? "" : RedactedURL.shown(value)
        default: value
        }
    }

    /// Whether the key `name` (of the settings or of a destination) holds a url: shown only
    /// as `RedactedURL.shown` makes it, wherever it is shown. The one list of them.
    public static func holdsURL(_ name: String) -> Bool {
        name == "endpoint" || name == "url" || name == "verify_url"
    }

    /// `token` as shown to people: "••••" when set, "" when empty. No part of it is
    /// shown, not even its last characters (`overland config get token` prints it whole,
    /// on request).
    public static func redactedToken(_ token: String) -> String {
        token.isEmpty ? "" : hiddenToken
    }

    /// Whether the key `name` holds a secret (`token`, `verify_token`): never shown, not
    /// even in part. The one list of them.
    public static func isSecret(_ name: String) -> Bool {
        name == "token" || name == "verify_token"
    }

    /// What stands for a token wherever one is shown.
    public static let hiddenToken = "••••"
}
