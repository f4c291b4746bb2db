import OverlandJournal
import OverlandJSON

/// Who last turned tracking off or on, and when: `tracking.json` beside the settings file,
/// written by whatever changes `tracking_enabled` or `tracking_mode` (`overland config`, a
/// server's `set`, a broker's `setConfiguration`), read by `overland-log` and `overland
/// status` to say how tracking came to be off:
///
///     {"version":1,"tracking":"off","since":"2026-11-26T09:12:00Z","by":"the mqtt broker of destination 'home' (setConfiguration)"}
///
/// Mode 0600, replaced whole. A file that does not parse, or that says something other
/// than what the settings say (the settings file was edited by hand since), counts as no
/// record: "who" is then unknown, and the messages say so.
public struct TrackingChange: Sendable, Equatable {
    public static let fileName = "tracking.json"
    /// The largest file read.
    static let maximumSize = 4096

    /// Whether this change turned tracking off (else on).
    public var off: Bool
    /// When (Unix seconds).
    public var since: Int64
    /// Who, as a phrase: "overland config", "the server of the default destination (set)".
    public var by: String

    public init(off: Bool, since: Int64, by: String) {
        self.off = off
        self.since = since
        self.by = by
    }

    /// Whether `settings` log nothing: tracking disabled, or its mode off.
    public static func isOff(_ settings: Settings) -> Bool {
        !settings.trackingEnabled || settings.main.trackingMode == .off
    }

    /// The file beside the settings file at `settingsPath`.
    public static func path(settingsPath: String) -> String {
        let directory = FileIO.directory(of: settingsPath)
        return (directory == "/" ? "" : directory) + "/" + fileName
    }

    /// The record that matches `settings`, or nil (none, unreadable, or out of date). Read
    /// through `fileSystem`.
    public static func load(settingsPath: String, matching settings: Settings,
                            fileSystem: any FileSystem = POSIXFileSystem()) -> TrackingChange? {
        guard let bytes = try? FileIO.readIfExists(path(settingsPath: settingsPath), limit: maximumSize, in: fileSystem),
              let value = try? JSONParser.parse(bytes, limits: JSONLimits(maxDepth: 2, maxBytes: maximumSize)),
              let tracking = value["tracking"]?.string, tracking == "off" || tracking == "on",
              let since = value["since"]?.string.flatMap({ ISO8601UTC.parse($0) }),
              let by = value["by"]?.string, !by.isEmpty, by.utf8.count <= 200 else { return nil }
        let change = TrackingChange(off: tracking == "off", since: since, by: by)
        return change.off == isOff(settings) ? change : nil
    }

    /// Writes a record when tracking went from on to off or back between `old` and `new`;
    /// never fails the change it follows (the record is a courtesy: without it, who is
    /// unknown). Returns whether it wrote.
    @discardableResult
    public static func recordIfChanged(from old: Settings, to new: Settings, by: String, now: Int64,
                                       settingsPath: String, fileSystem: any FileSystem = POSIXFileSystem()) -> Bool {
        guard isOff(old) != isOff(new) else { return false }
        var writer = JSONWriter()
        writer.appendRaw("{\"version\":1,\"tracking\":")
        writer.appendString(isOff(new) ? "off" : "on")
        writer.appendRaw(",\"since\":")
        writer.appendString(ISO8601UTC.string(from: now))
        writer.appendRaw(",\"by\":")
        writer.appendString(by)
        writer.appendRaw("}\n")
        do {
            try FileIO.replace(path(settingsPath: settingsPath), with: writer.bytes, in: fileSystem)
            return true
        } catch {
            return false
        }
    }

    /// What a remote change (a server's `set`, a broker's command) is announced with: tracking
    /// went off (`isOff`) or back on.
    public static func remoteLine(isOff: Bool) -> String {
        isOff ? "tracking turned off: overland-log logs nothing until 'overland config set tracking_mode standard'"
            : "tracking turned back on"
    }

    /// `tracking is off since 2026-11-26T09:12:00Z, set by X`, or with who unknown.
    public static func offLine(_ change: TrackingChange?) -> String {
        guard let change else {
            return "tracking is off (tracking_mode off or tracking_enabled false in the settings; who set it is not recorded)"
        }
        return "tracking is off since \(ISO8601UTC.string(from: change.since)), set by \(PrintableText.escaped(change.by))"
    }

    /// The line for settings that log nothing, with how to turn tracking on again, or nil
    /// when tracking is on (`overland-log` and `overland status` name it first).
    public static func notice(for settings: Settings, settingsPath: String) -> String? {
        guard isOff(settings) else { return nil }
        var fixes: [String] = []
        if settings.main.trackingMode == .off { fixes.append("'overland config set tracking_mode standard'") }
        if !settings.trackingEnabled { fixes.append("'overland config set tracking_enabled true'") }
        return offLine(load(settingsPath: settingsPath, matching: settings)) + ": nothing is logged until " + fixes.joined(separator: " and ")
    }
}
