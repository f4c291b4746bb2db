import OverlandJSON
import OverlandProtocol
import OverlandJournal

/// The settings file: where it is, how it is read and how it is written.
///
/// The file is a JSON object shaped like the protocol's `set` (section 7) plus this
/// project's keys, pretty-printed with one key per line in a fixed order, every key
/// written (see `encode(_:)`). Reading is strict: a missing key means its default, but
/// an unknown key, a repeated key, a wrong type or a value outside the allowed ones is an
/// error naming the file and line. A file that cannot be read or parsed is an error too,
/// never replaced by defaults: the caller must not save over it. Only the logger and
/// `overland status` read it tolerating mistakes (`loadTolerating(path:)`), never to save.
public enum SettingsFile {
    /// The largest settings file read, in bytes.
    public static let maximumSize = 1 << 20
    /// The deepest nesting a settings file may have (the top-level object is depth 1).
    public static let maximumDepth = KeyLocator.defaultMaxDepth

    // MARK: Where

    /// `$XDG_CONFIG_HOME/overland/settings.json`, else `$HOME/.config/overland/settings.json`.
    ///
    /// A relative `XDG_CONFIG_HOME` is ignored, as the XDG specification asks.
    public static func defaultPath(environment: [String: String] = ProcessEnvironment.current) -> String {
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? FileIO.home(environment) + "/.config"
        return base + "/overland/settings.json"
    }

    /// The file to use: the `--config` flag, else `$OVERLAND_CONFIG`, else `defaultPath`.
    /// Empty values count as unset.
    public static func resolvePath(flag: String?, environment: [String: String] = ProcessEnvironment.current) -> String {
        if let flag, !flag.isEmpty { return flag }
        if let variable = environment["OVERLAND_CONFIG"], !variable.isEmpty { return variable }
        return defaultPath(environment: environment)
    }

    // MARK: Reading

    /// The settings in the file at `path`; every default when there is no file.
    ///
    /// Symlinks are followed. Any other failure (unreadable, not a regular file,
    /// malformed, unknown key, bad value) throws. Read through `fileSystem`.
    public static func load(path: String, fileSystem: any FileSystem = POSIXFileSystem()) throws(SettingsError) -> Settings {
        guard let bytes = try FileIO.readIfExists(path, limit: maximumSize, in: fileSystem) else { return Settings() }
        return try decode(bytes, path: path)
    }

    /// The settings in the file at `path` as far as they can be read, for the logger (which
    /// never stops logging over a typo) and `overland status` (which shows the problem):
    /// every key that reads, the default for each that does not (an unknown key is passed
    /// over, a bad value leaves its key's default), and every default when the file cannot
    /// be read or parsed at all. `problems` lists what was passed over, in document order;
    /// empty when `load(path:)` would succeed.
    public static func loadTolerating(path: String, fileSystem: any FileSystem = POSIXFileSystem()) -> (settings: Settings, problems: [SettingsError]) {
        do {
            guard let bytes = try FileIO.readIfExists(path, limit: maximumSize, in: fileSystem) else { return (Settings(), []) }
            return decodeTolerating(bytes, path: path)
        } catch {
            return (Settings(), [error])
        }
    }

    /// A warning when the file at `path` is writable by others, readable by them while it
    /// `holdsToken`, or belongs to another user (see `FileIO.exposure(of:)`); nil when private or missing.
    public static func exposure(path: String, holdsToken: Bool) -> String? {
        FileIO.exposure(of: path, holdsToken: holdsToken)
    }

    /// The settings in `bytes`, the contents of the file at `path` (named in errors).
    ///
    /// A syntax error names the line and column (in bytes) of the offending byte, or of
    /// the end of the last line written when the text stops short. An error about a key
    /// or its value names the line where the key starts (found by `KeyLocator`, exact
    /// even for escaped or nested keys); a value continued on later lines is reported at
    /// its key. The first mistake in document order is reported.
    public static func decode(_ bytes: [UInt8], path: String) throws(SettingsError) -> Settings {
        let decoded = try decode(bytes, path: path, tolerating: false)
        return decoded.settings
    }

    /// `decode`, passing over what does not read (see `loadTolerating(path:)`).
    public static func decodeTolerating(_ bytes: [UInt8], path: String) -> (settings: Settings, problems: [SettingsError]) {
        do {
            return try decode(bytes, path: path, tolerating: true)
        } catch {
            return (Settings(), [error])
        }
    }

    /// The one decoding: strict (the first mistake throws) or tolerating (each mistake is
    /// recorded and its key keeps its default; only a file that is not a JSON object throws).
    private static func decode(_ bytes: [UInt8], path: String, tolerating: Bool) throws(SettingsError)
        -> (settings: Settings, problems: [SettingsError]) {
        let locator = KeyLocator(bytes, maxDepth: maximumDepth)
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes, limits: JSONLimits(maxDepth: maximumDepth, maxBytes: maximumSize, maxStringBytes: 64 << 10))
        } catch {
            throw syntaxError(error, bytes: bytes, locator: locator, path: path)
        }
        guard case .object(let members) = document else {
            throw .malformed(path: path, line: 1, column: nil, reason: "not a json object: settings are {\"key\": value, ...}")
        }
        var decoder = Decoder(path: path, locator: locator, tolerating: tolerating)
        if let duplicate = locator.duplicates.min(by: { $0.second < $1.second }) {
            try decoder.fail(.malformed(
                path: path, line: locator.line(atOffset: duplicate.second), column: nil,
                reason: "key \(quoted(duplicate.path.joined(separator: "."))) appears twice (also on line \(locator.line(atOffset: duplicate.first)))"))
        }
        try decoder.decodeTop(members)
        return (decoder.settings, decoder.problems)
    }

    private static func syntaxError(_ error: JSONError, bytes: [UInt8], locator: KeyLocator, path: String) -> SettingsError {
        guard bytes.contains(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else {
            return .malformed(path: path, line: 1, column: nil, reason: "the file is empty: settings are {\"key\": value, ...}")
        }
        var offset = min(error.offset, bytes.count)
        let reason: String
        switch error.reason {
        case .unexpectedEnd:
            // Point just after the last thing written, not at a trailing blank line.
            offset = bytes.count
            while offset > 0, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[offset - 1]) { offset -= 1 }
            reason = "unexpected end of file (a missing '}', ']' or '\"'?)"
        case .unexpectedByte(let byte) where byte >= 0x20 && byte < 0x7F:
            reason = "unexpected character '\(Character(Unicode.Scalar(byte)))'"
        default:
            var text = error.description
            let suffix = " at offset \(error.offset)"
            if text.hasSuffix(suffix) { text.removeLast(suffix.count) }
            reason = text
        }
        let position = locator.position(atOffset: offset)
        return .malformed(path: path, line: position.line, column: position.column, reason: "not valid json: " + reason)
    }

    /// Walks a parsed file in document order, so that the first mistake is the one reported.
    private struct Decoder {
        let path: String
        let locator: KeyLocator
        /// Record mistakes in `problems` and go on, rather than throw the first.
        let tolerating: Bool
        var settings = Settings()
        var problems: [SettingsError] = []

        init(path: String, locator: KeyLocator, tolerating: Bool) {
            self.path = path
            self.locator = locator
            self.tolerating = tolerating
        }

        /// A mistake: thrown when strict, recorded when tolerating (the caller then passes
        /// over the key, which keeps its default).
        mutating func fail(_ error: SettingsError) throws(SettingsError) {
            guard tolerating else { throw error }
            problems.append(error)
        }

        func location(_ path: [String]) -> SettingsLocation {
            SettingsLocation(path: self.path, line: locator.line(of: path))
        }

        func inDocumentOrder(_ members: [String: JSONValue], under parent: [String]) -> [(String, JSONValue)] {
            members.sorted { (locator.offsets[parent + [$0.key]] ?? 0) < (locator.offsets[parent + [$1.key]] ?? 0) }
        }

        func unknownKey(_ key: String, section: String?, allowed: [String]) -> SettingsError {
            .unknownKey(
                key: key, section: section, suggestions: Suggestions.closeMatches(for: key, among: allowed),
                allowed: allowed, location: location((section.map { [$0] } ?? []) + [key]))
        }

        mutating func decodeTop(_ members: [String: JSONValue]) throws(SettingsError) {
            for (key, value) in inDocumentOrder(members, under: []) {
                switch key {
                case "main": try decodeSection(value, key: key, section: .main)
                case "trip": try decodeSection(value, key: key, section: .trip)
                case "wifi_zone": try decodeWifiZone(value)
                default:
                    guard let field = Field.field(in: .top, key: key) else {
                        try fail(unknownKey(key, section: nil, allowed: SettingsFile.topLevelKeys))
                        continue
                    }
                    try assign(field, value, at: [key])
                }
            }
        }

        mutating func decodeSection(_ value: JSONValue, key: String, section: Field.Section) throws(SettingsError) {
            guard case .object(let members) = value else {
                try fail(.invalidValue(key: key, value: JSONText.render(value), allowed: "an object of \(key) settings", location: location([key])))
                return
            }
            for (member, value) in inDocumentOrder(members, under: [key]) {
                guard let field = Field.field(in: section, key: member) else {
                    try fail(unknownKey(member, section: key, allowed: Field.fields(in: section).map(\.key)))
                    continue
                }
                try assign(field, value, at: [key, member])
            }
        }

        mutating func decodeWifiZone(_ value: JSONValue) throws(SettingsError) {
            let allowed = "an object with ssid, latitude and longitude, or null"
            if value.isNull {
                settings.wifiZone = nil
                return
            }
            guard case .object(let members) = value else {
                try fail(.invalidValue(key: "wifi_zone", value: JSONText.render(value), allowed: allowed, location: location(["wifi_zone"])))
                return
            }
            // Each member is checked on its own line first, then the zone as a whole.
            var scratch = Settings()
            scratch.wifiZone = WifiZone(ssid: "", latitude: 0, longitude: 0)
            let memberFields = Field.fields(in: .wifiZone)
            for (member, value) in inDocumentOrder(members, under: ["wifi_zone"]) {
                guard let field = memberFields.first(where: { $0.key == member }) else {
                    try fail(unknownKey(member, section: "wifi_zone", allowed: memberFields.map(\.key)))
                    return
                }
                guard field.assign(&scratch, value) else {
                    try fail(.invalidValue(
                        key: field.filePath, value: JSONText.render(value), allowed: field.allowed,
                        location: location(["wifi_zone", member])))
                    return
                }
            }
            guard members.count == memberFields.count else {
                try fail(.invalidValue(key: "wifi_zone", value: JSONText.render(value), allowed: allowed, location: location(["wifi_zone"])))
                return
            }
            settings.wifiZone = scratch.wifiZone
        }

        mutating func assign(_ field: Field, _ value: JSONValue, at path: [String]) throws(SettingsError) {
            // A failed assignment leaves the key as it was (its default).
            var assigned = settings
            guard field.assign(&assigned, value) else {
                try fail(.invalidValue(key: field.filePath, value: RefusedValue.shown(key: field.filePath, value),
                                       allowed: field.allowedInJSON, location: location(path)))
                return
            }
            settings = assigned
        }
    }

    /// The keys allowed at the top level of the file, in the file's order.
    static var topLevelKeys: [String] {
        var keys: [String] = []
        for field in Field.all {
            switch field.section {
            case .top: keys.append(field.key)
            case .main: if !keys.contains("main") { keys.append("main") }
            case .trip: if !keys.contains("trip") { keys.append("trip") }
            case .wifiZone: break
            }
        }
        return keys
    }

    // MARK: Writing

    /// The file's text for `settings`: every key, in a fixed order, one per line, two
    /// spaces of indentation, ending with a newline. The same settings always give the
    /// same bytes, and `decode(encode(s))` gives `s` back.
    public static func encode(_ settings: Settings) -> [UInt8] {
        var writer = PrettyWriter()
        writer.open(nil)
        var section = Field.Section.top
        for field in Field.all where field.section != .wifiZone {
            if field.section != section {
                if section != .top { writer.close() }
                if field.section == .main { writer.open("main") }
                if field.section == .trip { writer.open("trip") }
                section = field.section
            }
            let value = field.current(settings)
            if field.key == "wifi_zone", let zone = settings.wifiZone {
                writer.open("wifi_zone")
                writer.member("ssid", .string(zone.ssid))
                writer.member("latitude", .number(zone.latitude))
                writer.member("longitude", .number(zone.longitude))
                writer.close()
            } else {
                writer.member(field.key, value)
            }
        }
        if section != .top { writer.close() }
        writer.close()
        writer.json.bytes.append(0x0A)
        return writer.json.bytes
    }

    /// Writes `settings` to `path` atomically (temporary file in the same directory,
    /// fsync, rename, directory fsync), mode 0600, creating missing parent directories
    /// with mode 0700.
    ///
    /// When `path` is a symlink, the file it points at is replaced and the link kept: the
    /// user made the link, and replacing it by a file would silently split their settings
    /// in two. Every write goes through `fileSystem` (the journal's rules: a simulated
    /// disk can stand in).
    public static func save(_ settings: Settings, to path: String,
                            fileSystem: any FileSystem = POSIXFileSystem()) throws(SettingsError) {
        let target = try FileIO.followingSymlinks(path)
        try FileIO.makeDirectories(FileIO.directory(of: target), in: fileSystem)
        try FileIO.replace(target, with: encode(settings), in: fileSystem)
    }

    /// Loads the file, lets `change` edit the settings and saves them if they changed, all
    /// under an exclusive lock on `PATH.lock` beside the file: a `config set` and a sync
    /// saving a server's `set` at the same moment both land, one after the other. Returns
    /// the settings before and after. `change` may throw anything; it is rethrown, and
    /// nothing is saved. Reads and writes go through `fileSystem`.
    public static func update(path: String, fileSystem: any FileSystem = POSIXFileSystem(),
                              _ change: (inout Settings) throws -> Void) throws -> (old: Settings, new: Settings) {
        let target = try FileIO.followingSymlinks(path)
        try FileIO.makeDirectories(FileIO.directory(of: target), in: fileSystem)
        return try FileIO.withExclusiveLock(target + ".lock", in: fileSystem) { () throws -> (old: Settings, new: Settings) in
            let old = try load(path: target, fileSystem: fileSystem)
            var new = old
            try change(&new)
            if new != old { try FileIO.replace(target, with: encode(new), in: fileSystem) }
            return (old, new)
        }
    }
}

/// Pretty-printed JSON: one member per line, members in the order written.
struct PrettyWriter {
    var json = JSONWriter()
    private var hasMembers: [Bool] = []

    private mutating func startMember(_ key: String?) {
        guard !hasMembers.isEmpty else { return }
        if hasMembers[hasMembers.count - 1] { json.appendRaw(",") }
        hasMembers[hasMembers.count - 1] = true
        newline()
        if let key {
            json.appendString(key)
            json.appendRaw(": ")
        }
    }

    private mutating func newline() {
        json.appendRaw("\n")
        json.appendRaw(Array(repeating: UInt8(ascii: " "), count: 2 * hasMembers.count))
    }

    mutating func open(_ key: String?) {
        startMember(key)
        json.appendRaw("{")
        hasMembers.append(false)
    }

    mutating func member(_ key: String, _ value: JSONValue) {
        startMember(key)
        json.appendValue(value)
    }

    mutating func close() {
        hasMembers.removeLast()
        newline()
        json.appendRaw("}")
    }
}
