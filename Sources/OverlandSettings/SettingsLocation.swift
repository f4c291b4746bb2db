/// A file and line that an error is about.
public struct SettingsLocation: Sendable, Equatable, CustomStringConvertible {
    /// The settings file.
    public var path: String
    /// The line, counted from 1.
    public var line: Int

    /// Creates a location.
    public init(path: String, line: Int) {
        self.path = path
        self.line = line
    }

    /// `'PATH' line N`.
    public var description: String { "'\(path)' line \(line)" }
}
