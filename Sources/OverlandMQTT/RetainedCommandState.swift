import OverlandJSON
import OverlandJournal

/// The retained `setConfiguration` an MQTT destination last applied, as a fingerprint of
/// its payload (`FNV1a`, never the payload), in the journal's `state/commands-NAME.json`:
///
///     {"version":1,"retained_command":"3f1c0d2e9a8b7c6d"}
///
/// A broker hands a retained message to every new subscription, so without this a
/// `setConfiguration` retained on `TOPIC/cmd` would be applied again at every connection,
/// undoing whatever the user changed meanwhile. A file that does not parse counts as none
/// (the worst outcome: the command is applied once more).
enum RetainedCommandState {
    static func fileName(destination: String) -> String { "commands-\(destination).json" }

    static func load(journal: Journal, destination: String) -> String? {
        guard let bytes = try? journal.readState(fileName(destination: destination)),
              let value = try? JSONParser.parse(bytes, limits: JSONLimits(maxDepth: 2, maxBytes: 4096)) else { return nil }
        return value["retained_command"]?.string
    }

    static func save(_ fingerprint: String, journal: Journal, destination: String) throws(JournalError) {
        var writer = JSONWriter()
        writer.appendRaw("{\"version\":1,\"retained_command\":")
        writer.appendString(fingerprint)
        writer.appendRaw("}\n")
        try journal.writeState(fileName(destination: destination), writer.bytes)
    }
}
