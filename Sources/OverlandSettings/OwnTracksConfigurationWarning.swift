/// Something in an OwnTracks `setConfiguration` that was not applied.
public struct OwnTracksConfigurationWarning: Sendable, Equatable, CustomStringConvertible {
    /// Why it was not applied.
    public enum Reason: Sendable, Equatable {
        /// No setting here corresponds to the key (or OwnTracks has no such key).
        case unknownKey
        /// A connection, identity or secret setting (host, password, deviceId...), which
        /// only the user changes. Its value is never shown.
        case refused
        /// A wrong type or a value outside what the setting allows; `value` is JSON text.
        case invalidValue(value: String, allowed: String)
    }

    /// The OwnTracks key: "locatorInterval".
    public var key: String
    public var reason: Reason

    /// Creates a warning.
    public init(key: String, reason: Reason) {
        self.key = key
        self.reason = reason
    }

    /// `setConfiguration: invalid value 7 for "locatorDisplacement" ignored (allowed: ...)`.
    public var description: String {
        switch reason {
        case .unknownKey:
            return "setConfiguration: unknown key \(quoted(key)) ignored"
        case .refused:
            return "setConfiguration: \(quoted(key)) cannot be changed remotely; ignored"
        case .invalidValue(let value, let allowed):
            return "setConfiguration: invalid value \(value) for \(quoted(key)) ignored (allowed: \(allowed))"
        }
    }
}
