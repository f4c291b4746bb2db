/// The destinations a command names, among those configured: the one rule of
/// `overland-sync --to` and of `overland destination` for a name none has.
extension Destination {
    /// The destinations `names` names, in that order, each once; every configured one
    /// when `names` is empty. Throws when none is configured, or for a name none has.
    public static func selected(_ names: [String], among all: [Destination]) throws(DestinationSelectionError) -> [Destination] {
        guard !all.isEmpty else { throw .noneConfigured }
        guard !names.isEmpty else { return all }
        var selected: [Destination] = []
        for name in names where !selected.contains(where: { $0.name == name }) {
            guard let destination = all.first(where: { $0.name == name }) else { throw .unknown(name, among: all) }
            selected.append(destination)
        }
        return selected
    }
}

/// Why no destination was selected.
public enum DestinationSelectionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No endpoint and no destination in `destinations.json`.
    case noneConfigured
    /// `name` is none of `configured`.
    case unknown(String, configured: [String])

    /// `withDefault`: `default` is named first even without an endpoint (`destination set`
    /// takes it: the settings file is always there), as `overland-sync --to` names it.
    public static func unknown(_ name: String, among destinations: [Destination], withDefault: Bool = false) -> Self {
        var names = destinations.map(\.name)
        if withDefault, !names.contains(Destination.defaultName) { names.insert(Destination.defaultName, at: 0) }
        return .unknown(name, configured: names)
    }

    public var description: String {
        switch self {
        case .noneConfigured:
            "no endpoint: set one with 'overland config set endpoint URL' or OVERLAND_URL "
                + "(or add a destination: 'overland destination add NAME URL')"
        case .unknown(let name, let names):
            "no destination '\(name)'" + (names.isEmpty ? "" : " (configured: \(names.joined(separator: ", ")))")
        }
    }
}
