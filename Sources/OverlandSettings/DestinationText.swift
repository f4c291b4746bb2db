import OverlandJSON
import OverlandProtocol

/// How `overland destination` shows destinations: the token as set or not set, urls with
/// their secrets redacted (`RedactedURL`), "(none)" for a key not set.
public enum DestinationText {
    /// "Keys: ...; overland only: ...; mqtt only: ...": from `DestinationKey.all`, so that
    /// the help names every key the table holds.
    public static var keysHelp: String {
        var groups: [(who: String, names: [String])] = []
        for key in DestinationKey.all {
            let who = key.protocols.count == WireProtocol.allCases.count ? "Keys" : key.takenBy
            if let index = groups.firstIndex(where: { $0.who == who }) {
                groups[index].names.append(key.name)
            } else {
                groups.append((who, [key.name]))
            }
        }
        return groups.map { "\($0.who): \($0.names.joined(separator: ", "))" }.joined(separator: "; ") + "."
    }

    /// A key's value as shown to people.
    public static func shown(_ key: DestinationKey, in destination: Destination) -> String {
        switch key.name {
        case _ where SettingKey.isSecret(key.name): return Destination.shownToken(key.get(from: destination))
        case _ where SettingKey.holdsURL(key.name):
            let url = key.get(from: destination)
            return url.isEmpty ? SettingsText.shown(url) : RedactedURL.shown(url)
        default: return SettingsText.shown(key.get(from: destination))
        }
    }

    /// "traccar: traccar to http://...", and its profile when it has one.
    public static func summary(_ destination: Destination) -> String {
        "\(destination.name): \(destination.wireProtocol) to \(RedactedURL.shown(destination.url))"
            + (destination.profile == .none ? "" : ", profile \(destination.profile.name)")
    }

    /// `list`: one line per destination, name, protocol, url and profile in columns.
    public static func list(_ destinations: [Destination]) -> [String] {
        let width = destinations.map(\.name.count).max() ?? 0
        let protocolWidth = destinations.map(\.wireProtocol.rawValue.count).max() ?? 0
        return destinations.map { destination in
            var line = SettingsText.padded(destination.name, to: width) + "  "
                + SettingsText.padded(destination.wireProtocol.rawValue, to: protocolWidth)
            line += "  " + RedactedURL.shown(destination.url)
            if destination.profile != .none { line += "  (profile \(destination.profile.name))" }
            return line
        }
    }

    /// `show`: its name, then one line per key its protocol takes, in columns.
    public static func keys(of destination: Destination) -> [String] {
        let keys = [("name", destination.name)] + DestinationKey.keys(of: destination).map { ($0.name, shown($0, in: destination)) }
        let width = keys.map(\.0.count).max() ?? 0
        return keys.map { key, value in SettingsText.padded(key, to: width) + "  " + value }
    }

    /// `list --json`: an array of objects, every key its protocol takes; the token as
    /// true or false, the url with its secrets redacted.
    public static func json(_ destinations: [Destination]) -> String {
        var writer = JSONWriter()
        writer.appendRaw("[" as StaticString)
        for (index, destination) in destinations.enumerated() {
            if index > 0 { writer.appendRaw("," as StaticString) }
            writer.appendRaw("{\"name\":" as StaticString)
            writer.appendString(destination.name)
            for key in DestinationKey.keys(of: destination) {
                writer.appendRaw(",")
                writer.appendString(key.name)
                writer.appendRaw(":")
                switch key.name {
                case _ where SettingKey.isSecret(key.name): writer.appendBool(!key.get(from: destination).isEmpty)
                case _ where SettingKey.holdsURL(key.name):
                    if let url = key.value(in: destination).string { writer.appendString(RedactedURL.shown(url)) } else { writer.appendNull() }
                default: writer.appendValue(key.value(in: destination))
                }
            }
            writer.appendRaw("}" as StaticString)
        }
        writer.appendRaw("]\n" as StaticString)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
