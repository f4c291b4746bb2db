import OverlandJSON

/// Why a payload received on `TOPIC/cmd` is not a command this device can read.
public enum OwnTracksCommandError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not JSON, or beyond `OwnTracksCommand.limits` (size, depth, string length).
    case invalidJSON(JSONError)
    /// A JSON value other than an object.
    case notAnObject
    /// `_type` is absent, not a string, or not `cmd`; `found` says what it is (a
    /// string quoted, sanitised and cut short; otherwise its kind).
    case notACommand(found: String)
    /// `action` is absent or not a string.
    case missingAction
    /// `setConfiguration` without a `configuration` object whose `_type`, if any, is
    /// `configuration`.
    case invalidConfiguration

    /// One lower-case line naming the problem and what is expected.
    public var description: String {
        switch self {
        case .invalidJSON(let error):
            return "cmd: invalid json: \(error) (expected {\"_type\":\"cmd\",\"action\":...} of at most \(OwnTracksCommand.limits.maxBytes) bytes)"
        case .notAnObject:
            return "cmd: not a json object (expected {\"_type\":\"cmd\",\"action\":...})"
        case .notACommand(let found):
            return "cmd: _type is \(found), not \"cmd\""
        case .missingAction:
            return "cmd: \"action\" is missing or not a string (expected reportLocation, setConfiguration...)"
        case .invalidConfiguration:
            return "cmd: setConfiguration needs \"configuration\": an object with \"_type\":\"configuration\""
        }
    }
}
