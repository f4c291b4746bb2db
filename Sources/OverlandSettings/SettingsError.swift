/// Why settings could not be read, written or changed.
public enum SettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call failed on the settings file or its directory.
    case io(operation: String, path: String, reason: String, code: Int32)
    /// The file is not valid JSON, not an object, or repeats a key.
    case malformed(path: String, line: Int, column: Int?, reason: String)
    /// A key that does not exist. `section` is the enclosing object in a file ("main"),
    /// `suggestions` the close matches, `allowed` every key accepted there.
    case unknownKey(key: String, section: String?, suggestions: [String], allowed: [String], location: SettingsLocation?)
    /// A value of the wrong type or outside the allowed ones. `value` is shown as JSON
    /// text (`"fast"`, `300`, `true`).
    case invalidValue(key: String, value: String, allowed: String, location: SettingsLocation?)
    /// A setup link that cannot be applied.
    case invalidSetupLink(reason: String)
    /// A value refused by the check the sync itself runs (a receiver's url, an MQTT topic,
    /// an OwnTracks device id): `reason` is that check's own one-line message.
    case refusedValue(reason: String)

    /// What kind of failure this is, for the exit status.
    public enum Category: Sendable, Equatable {
        /// Bad configuration: sysexits 78 (EX_CONFIG).
        case configuration
        /// The file or its directory could not be read or written: sysexits 74 (EX_IOERR).
        case io
    }

    /// What kind of failure this is, for the exit status.
    public var category: Category {
        if case .io = self { return .io }
        return .configuration
    }

    /// The errno of a failed system call, so that a caller may single out EACCES (77).
    public var errno: Int32? {
        if case .io(_, _, _, let code) = self { return code }
        return nil
    }

    /// A lower-case message naming the file, line, key, value and what is allowed.
    public var description: String {
        switch self {
        case .io(let operation, let path, let reason, _):
            return "\(operation) '\(path)': \(reason)"
        case .malformed(let path, let line, let column, let reason):
            let position = column.map { "line \(line) column \($0)" } ?? "line \(line)"
            return "'\(path)' \(position): \(reason)"
        case .unknownKey(let key, let section, let suggestions, let allowed, let location):
            var text = location.map { "\($0): " } ?? ""
            text += location == nil ? "unknown setting \(quoted(key))" : "unknown key \(quoted(key))"
            if let section { text += " in \(quoted(section))" }
            if !suggestions.isEmpty {
                text += "; did you mean " + suggestions.map(quoted).joined(separator: " or ") + "?"
            }
            // On the command line the suggestions suffice; a file gets the whole list.
            if suggestions.isEmpty || location != nil {
                text += " (allowed: " + allowed.joined(separator: ", ") + ")"
            }
            return text
        case .invalidValue(let key, let value, let allowed, let location):
            let prefix = location.map { "\($0): " } ?? ""
            return "\(prefix)invalid value \(value) for \(quoted(key)) (allowed: \(allowed))"
        case .invalidSetupLink(let reason):
            return "invalid setup link: \(reason)"
        case .refusedValue(let reason):
            return reason
        }
    }
}
