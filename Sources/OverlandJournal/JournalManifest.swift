import OverlandJSON

/// `manifest.json`: what makes a directory a journal. Written once, when the journal is
/// created; readers refuse a newer format version than they know.
public struct JournalManifest: Sendable, Equatable {
    /// The format name written in every manifest.
    public static let formatName = "overland-journal"
    /// The format version this code writes and reads.
    public static let currentVersion = 1
    /// The largest manifest read (section 2).
    public static let maximumSize = 4096

    public var version: Int
    public var journalID: JournalID
    /// The device id the journal was created for ("" when none was configured).
    public var deviceID: String
    /// When the journal was created, Unix seconds UTC.
    public var created: Int64
    /// The machine that created the journal, as a hashed machine id (never the raw
    /// /etc/machine-id); nil in journals made before it was recorded, or where the machine
    /// has no id. Copy detection compares it with the syncing machine's.
    public var machine: String?

    public init(journalID: JournalID, deviceID: String, created: Int64, machine: String? = nil) {
        self.version = Self.currentVersion
        self.journalID = journalID
        self.deviceID = deviceID
        self.created = created
        self.machine = machine
    }

    /// The file's bytes: one JSON object and a newline.
    var encoded: [UInt8] {
        var writer = JSONWriter()
        writer.appendRaw("{\"format\":")
        writer.appendString(Self.formatName)
        writer.appendRaw(",\"version\":")
        writer.appendInteger(version)
        writer.appendRaw(",\"journal_id\":")
        writer.appendString(journalID.description)
        writer.appendRaw(",\"device_id\":")
        writer.appendString(deviceID)
        writer.appendRaw(",\"created\":")
        writer.appendString(ISO8601UTC.string(from: created))
        if let machine {
            writer.appendRaw(",\"machine\":")
            writer.appendString(machine)
        }
        writer.appendRaw("}\n" as StaticString)
        return writer.bytes
    }

    /// Parses a manifest file's bytes; `path` names it in errors.
    init(parsing bytes: [UInt8], path: String) throws(JournalError) {
        guard bytes.count <= Self.maximumSize else {
            throw .notAJournal(path: path, reason: "manifest is larger than \(Self.maximumSize) bytes")
        }
        // Every reader must read one manifest the same way: a repeated key is refused, and
        // unknown keys may hold any value a record may (section 2).
        let members: [(key: String, value: Range<Int>)]
        switch TopLevelMembers.checked(bytes) {
        case .members(let found): members = found
        case .refused(let reason): throw .notAJournal(path: path, reason: "manifest is \(reason)")
        }
        func value(_ key: String) -> JSONValue? { TopLevelMembers.value(key, in: members, of: bytes) }
        guard value("format")?.string == Self.formatName else {
            throw .notAJournal(path: path, reason: "manifest has no \"format\": \"\(Self.formatName)\"")
        }
        guard let digits = TopLevelMembers.raw("version", in: members, of: bytes),
              let written = TopLevelMembers.plainInteger(digits), written >= 1, written <= UInt64(Int.max) else {
            throw .notAJournal(path: path, reason: "manifest version is not a positive integer")
        }
        let version = Int(written)
        guard version <= Self.currentVersion else {
            throw .notAJournal(path: path, reason: "format version \(version) is newer than this program reads (\(Self.currentVersion)); upgrade overland")
        }
        guard let idText = value("journal_id")?.string, let id = JournalID(hex: idText) else {
            throw .notAJournal(path: path, reason: "manifest journal_id is not 32 hex digits")
        }
        // Exactly YYYY-MM-DDTHH:MM:SSZ, a real time (no fraction, no offset).
        guard let createdText = value("created")?.string, createdText.utf8.count == ISO8601UTC.formattedLength,
              createdText.utf8.last == UInt8(ascii: "Z"), let created = ISO8601UTC.parse(createdText) else {
            throw .notAJournal(path: path, reason: "manifest created is not an ISO 8601 UTC time")
        }
        self.version = version
        self.journalID = id
        self.deviceID = value("device_id")?.string ?? ""
        self.created = created
        self.machine = value("machine")?.string.flatMap { $0.isEmpty ? nil : $0 }
    }
}
