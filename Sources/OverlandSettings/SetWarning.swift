/// Something in a server's `set` that was not applied.
public struct SetWarning: Sendable, Equatable, CustomStringConvertible {
    /// Why it was not applied.
    public enum Reason: Sendable, Equatable {
        /// The protocol has no such key (here).
        case unknownKey
        /// A setting of this project that only the user may change (endpoint, token...).
        case notRemotelySettable
        /// A wrong type or a value outside the list; `value` is JSON text.
        case invalidValue(value: String, allowed: String)
    }

    /// Where in `set`: "send_interval", "main.batch_size", "trip.tracking_mode".
    public var key: String
    /// Why it was not applied.
    public var reason: Reason

    /// `set: invalid value 300 for "main.batch_size" ignored (allowed: 50, 100, 200, 500, 1000)`.
    public var description: String {
        switch reason {
        case .unknownKey:
            return "set: unknown key \(quoted(key)) ignored"
        case .notRemotelySettable:
            return "set: \(quoted(key)) cannot be changed by the server; ignored"
        case .invalidValue(let value, let allowed):
            return "set: invalid value \(value) for \(quoted(key)) ignored (allowed: \(allowed))"
        }
    }
}
