/// A setting whose value is one of a fixed list, spelled as in the protocol.
public protocol SettingChoice: CaseIterable, Sendable, Hashable where AllCases == [Self] {
    /// The protocol's spelling of this value, such as "5m", "owntracks" or "200".
    var name: String { get }
}

extension SettingChoice {
    /// The value spelled `name`, or nil when no value is spelled that way.
    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }

    /// Every allowed spelling, in the protocol's order, separated by commas: "all, latest, owntracks".
    public static var allowedNames: String {
        allCases.map(\.name).joined(separator: ", ")
    }
}

extension SettingChoice where Self: RawRepresentable, RawValue == String {
    /// The protocol's spelling, which is the raw value.
    public var name: String { rawValue }
}
