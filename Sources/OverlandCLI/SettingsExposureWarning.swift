import OverlandSettings

/// Warns, once per run, when the settings file can be written by others, read by them
/// while it holds the token, or belongs to a user other than the caller and root. Like ssh, which complains about such a key file; unlike ssh it goes on, since
/// the file may be shared on purpose (a system-wide file readable by a service's group).
enum SettingsExposureWarning {
    nonisolated(unsafe) private static var warned = false

    static func once(path: String, holdsToken: Bool) {
        guard !warned, let problem = SettingsFile.exposure(path: path, holdsToken: holdsToken) else { return }
        warned = true
        let tool = CommandLine.arguments.first.map { String($0.split(separator: "/").last ?? "overland") } ?? "overland"
        Terminal.error("\(tool): warning: \(problem)")
    }
}
