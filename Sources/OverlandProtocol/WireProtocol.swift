/// How a destination's points travel: the protocol a receiver speaks, by name. Each is
/// declared beside its receiver (`static let traccar` in `TraccarReceiver.swift`) and
/// exists once `Receivers.table` lists it: the table is the list of them all (`allCases`),
/// for the settings, the sync and the help alike.
public struct WireProtocol: Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The name, as in the settings (`"protocol": "traccar"`).
    public let rawValue: String

    /// Declares the protocol `name`; list it in `Receivers.table`.
    public init(declaring name: String) {
        rawValue = name
    }

    /// The registered protocol called `rawValue`, or nil.
    public init?(rawValue: String) {
        guard let found = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = found
    }

    /// Every protocol, in `Receivers.table`'s order.
    public static var allCases: [WireProtocol] { Receivers.table.map(\.wireProtocol) }

    public var description: String { rawValue }
}
