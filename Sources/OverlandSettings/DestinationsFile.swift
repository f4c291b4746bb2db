import OverlandJSON
import OverlandJournal
import OverlandProtocol

/// `destinations.json`: the destinations besides the default one, in the directory of the
/// settings file (so `--config` and `OVERLAND_CONFIG` move it with the settings).
///
///     {
///       "version": 1,
///       "destinations": {
///         "traccar": {
///           "url": "http://traccar.example:5055/",
///           "protocol": "traccar",
///           ...
///         }
///       }
///     }
///
/// Each destination is an object under its name (`[a-z0-9][a-z0-9_-]{0,31}`) holding the
/// keys of `DestinationKey.all` its protocol takes; `url` is required, a missing key means
/// its default. Reading is strict, as for the settings file: an unknown key, a key the
/// destination's protocol does not take, a repeated key, a wrong type, a value outside the
/// allowed ones, a bad name or another `version` is an error naming the file and line, and
/// a file that cannot be read is never replaced. Written whole, every key its protocol
/// takes, destinations by name, atomically (temporary file, fsync, rename, directory
/// fsync), mode 0600, its directory created 0700.
public enum DestinationsFile {
    /// The file's name, beside the settings file.
    public static let fileName = "destinations.json"
    /// The version this build reads and writes.
    public static let version = 1
    /// The largest file read, in bytes.
    public static let maximumSize = 1 << 20
    /// The most destinations, besides the default one.
    public static let maximumCount = 64

    /// The file beside the settings file at `settingsPath` (the path as named: a symlinked
    /// settings file keeps its destinations where the link is).
    public static func path(settingsPath: String) -> String {
        let directory = FileIO.directory(of: settingsPath)
        return (directory == "/" ? "" : directory) + "/" + fileName
    }

    /// The destinations in the file at `path`, by name; none when there is no file. Read
    /// through `fileSystem`.
    public static func load(path: String, fileSystem: any FileSystem = POSIXFileSystem()) throws(SettingsError) -> [Destination] {
        guard let bytes = try FileIO.readIfExists(path, limit: maximumSize, in: fileSystem) else { return [] }
        return try decode(bytes, path: path)
    }

    /// The destinations in `bytes`, the contents of the file at `path` (named in errors).
    public static func decode(_ bytes: [UInt8], path: String) throws(SettingsError) -> [Destination] {
        let locator = KeyLocator(bytes, maxDepth: 4)
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes, limits: JSONLimits(maxDepth: 4, maxBytes: maximumSize, maxStringBytes: 64 << 10))
        } catch {
            let position = locator.position(atOffset: min(error.offset, bytes.count))
            throw .malformed(path: path, line: position.line, column: position.column, reason: "not valid json: \(error)")
        }
        func line(_ keys: String...) -> Int { locator.line(of: keys) }
        func malformed(_ line: Int, _ reason: String) -> SettingsError {
            .malformed(path: path, line: line, column: nil, reason: reason)
        }
        guard case .object(let top) = document else {
            throw malformed(1, "not a json object: destinations are {\"version\": 1, \"destinations\": {NAME: {...}}}")
        }
        if let duplicate = locator.duplicates.min(by: { $0.second < $1.second }) {
            throw malformed(locator.line(atOffset: duplicate.second),
                            "key \(quoted(duplicate.path.joined(separator: "."))) appears twice (also on line \(locator.line(atOffset: duplicate.first)))")
        }
        for key in top.keys.sorted() where key != "version" && key != "destinations" {
            throw .unknownKey(key: key, section: nil, suggestions: Suggestions.closeMatches(for: key, among: ["version", "destinations"]),
                              allowed: ["version", "destinations"], location: SettingsLocation(path: path, line: line(key)))
        }
        guard let versionValue = top["version"] else { throw malformed(1, "no \"version\": this file starts {\"version\": 1, ...}") }
        guard let found = versionValue.int, found == version else {
            throw malformed(line("version"), "version \(JSONText.render(versionValue)) is not one this overland reads (\(version)): "
                + "written by a newer one? Upgrade, or remove the file and add the destinations again")
        }
        guard let members = top["destinations"] else { return [] }
        guard case .object(let entries) = members else {
            throw .invalidValue(key: "destinations", value: JSONText.render(members), allowed: "an object of destinations by name",
                                location: SettingsLocation(path: path, line: line("destinations")))
        }
        guard entries.count <= maximumCount else {
            throw malformed(line("destinations"), "more than \(maximumCount) destinations")
        }
        let ordered = entries.sorted { (locator.offsets[["destinations", $0.key]] ?? 0) < (locator.offsets[["destinations", $1.key]] ?? 0) }
        var destinations: [Destination] = []
        for (name, value) in ordered {
            let at = SettingsLocation(path: path, line: line("destinations", name))
            guard Destination.isValidName(name) else {
                throw .invalidValue(key: "destinations", value: quoted(name), allowed: "a name of " + Destination.nameAllowed, location: at)
            }
            guard name != Destination.defaultName else {
                throw malformed(at.line, "\"default\" is the settings file's destination (endpoint, token...): it is not written here")
            }
            destinations.append(try decodeDestination(name: name, value, locator: locator, path: path))
        }
        return destinations.sorted { $0.name < $1.name }
    }

    private static func decodeDestination(name: String, _ value: JSONValue, locator: KeyLocator,
                                          path: String) throws(SettingsError) -> Destination {
        func location(_ key: String? = nil) -> SettingsLocation {
            SettingsLocation(path: path, line: locator.line(of: ["destinations", name] + (key.map { [$0] } ?? [])))
        }
        guard case .object(let members) = value else {
            throw .invalidValue(key: name, value: JSONText.render(value), allowed: "an object of destination keys", location: location())
        }
        var destination = Destination(name: name, url: "")
        // The protocol first: what the url and the other keys may be depends on it.
        if let protocolValue = members["protocol"] {
            let key = try! DestinationKey(named: "protocol")
            guard key.assign(&destination, protocolValue) else {
                throw .invalidValue(key: "protocol", value: JSONText.render(protocolValue), allowed: WireProtocol.allowedNames,
                                    location: location("protocol"))
            }
        }
        let ordered = members.sorted {
            (locator.offsets[["destinations", name, $0.key]] ?? 0) < (locator.offsets[["destinations", name, $1.key]] ?? 0)
        }
        for (member, value) in ordered where member != "protocol" {
            guard let key = DestinationKey.all.first(where: { $0.name == member }) else {
                let names = DestinationKey.all.map(\.name)
                throw .unknownKey(key: member, section: name, suggestions: Suggestions.closeMatches(for: member, among: names),
                                  allowed: names, location: location(member))
            }
            guard key.applies(to: destination.wireProtocol) else {
                throw .malformed(path: path, line: location(member).line, column: nil,
                                 reason: "key \"\(member)\" does not apply to protocol \(destination.wireProtocol) (\(key.takenBy) takes it)")
            }
            guard key.assign(&destination, value) else {
                throw .invalidValue(key: "\(name).\(member)", value: RefusedValue.shown(key: member, value),
                                    allowed: key.allowed(for: destination.wireProtocol), location: location(member))
            }
        }
        guard members["url"] != nil else {
            throw .malformed(path: path, line: location().line, column: nil, reason: "destination \"\(name)\" has no url")
        }
        return destination
    }

    /// The file's text: every destination by name, each with every key its protocol
    /// takes, one per line. `decode(encode(d))` gives `d` back.
    public static func encode(_ destinations: [Destination]) -> [UInt8] {
        var writer = PrettyWriter()
        writer.open(nil)
        writer.member("version", .number(Double(version)))
        writer.open("destinations")
        for destination in destinations.sorted(by: { $0.name < $1.name }) {
            writer.open(destination.name)
            for key in DestinationKey.keys(of: destination) {
                writer.member(key.name, key.current(destination))
            }
            writer.close()
        }
        writer.close()
        writer.close()
        writer.json.bytes.append(0x0A)
        return writer.json.bytes
    }

    /// Loads the file, lets `change` edit the destinations and saves them if they changed,
    /// all under an exclusive lock on `PATH.lock`. A file that cannot be read or parsed
    /// stops everything before `change` runs: it is never overwritten. Returns the
    /// destinations before and after. `change` may throw anything; nothing is saved then.
    /// Reads and writes go through `fileSystem` (the journal's rules).
    public static func update(path: String, fileSystem: any FileSystem = POSIXFileSystem(),
                              _ change: (inout [Destination]) throws -> Void) throws -> (old: [Destination], new: [Destination]) {
        let target = try FileIO.followingSymlinks(path)
        try FileIO.makeDirectories(FileIO.directory(of: target), in: fileSystem)
        return try FileIO.withExclusiveLock(target + ".lock", in: fileSystem) { () throws -> (old: [Destination], new: [Destination]) in
            let old = try load(path: target, fileSystem: fileSystem)
            var new = old
            try change(&new)
            new.sort { $0.name < $1.name }
            if new != old { try FileIO.replace(target, with: encode(new), in: fileSystem) }
            return (old, new)
        }
    }

    /// A warning when the file can be written by others or read by them while it holds a
    /// token (see the settings file's); nil when private or missing.
    public static func exposure(path: String, holdsToken: Bool) -> String? {
        FileIO.exposure(of: path, holdsToken: holdsToken).map { $0.replacing("settings file", with: "destinations file") }
    }
}
