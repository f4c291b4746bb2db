import ArgumentParser
import OverlandJSON
import OverlandProtocol
import OverlandSettings
import OverlandSync

/// `overland destination`: the receivers the journal is sent to, each with its own cursor.
public struct DestinationCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "destination",
        abstract: "Add, change, list and remove the receivers points are sent to.",
        discussion: """
            One journal can feed several receivers: each destination has a name, a url, a \
            protocol (overland, owntracks, traccar or mqtt), its own settings (token, \
            device_id, batch_size, logging_mode, send_interval, profile...) and its own \
            cursor in the journal, so a receiver that is down never holds the others back \
            and never loses its own backlog. overland-sync sends to every destination that \
            is due (--to NAME for some).

            The destination named 'default' is the settings file's endpoint, token, \
            batch_size, logging_mode, send_interval...: what 'overland config' and setup \
            links change. The others live in destinations.json beside the settings file \
            (mode 0600).

            A new destination starts at the journal's end: it gets the points logged from \
            now on. --from-start gives it every record still in the journal instead. Its \
            cursor is written into the configured journal (--journal, $OVERLAND_JOURNAL, the \
            settings' journal, or the default one); 'remove' deletes that cursor, which \
            releases the segments only it still needed.

            Tokens are never printed: 'show' says whether one is set. To keep a token out \
            of the shell history and the process list, add reads it with --token-stdin and \
            set with --stdin.

            Examples:
              overland destination add traccar http://traccar.example:5055 \\
                  --protocol traccar
              pass show dawarich | overland destination add dawarich \\
                  'https://dawarich.example/api/v1/overland/batches' \\
                  --profile dawarich --token-stdin
              overland destination set traccar device_id van-42
              overland destination list
              overland destination remove traccar

            Exit status: 0 done; 64 a bad name, key, value or argument; 74 a file cannot be \
            read or written; 75 a sync is running (try again); 77 permission denied; 78 the \
            settings or destinations file is malformed.
            """,
        subcommands: [Add.self, SetValue.self, List.self, Show.self, Remove.self, Audit.self, Resend.self],
        defaultSubcommand: List.self
    )

    static let tool = "overland destination"

    public init() {}

    /// `name` when it is a destination name, else a usage error saying what a name is.
    static func checkedName(_ name: String) throws -> String {
        guard Destination.isValidName(name) else {
            throw CommandFailure("invalid destination name \(quotedName(name)): a name is \(Destination.nameAllowed)", status: .usage)
        }
        return name
    }

    static func quotedName(_ name: String) -> String { "'" + name + "'" }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a destination; it starts at the journal's end.",
            discussion: """
                NAME is 1 to 32 characters of a-z, 0-9, '_' and '-' (it names the cursor in \
                the journal). URL is http(s) for overland, owntracks and traccar, mqtt:// or \
                mqtts:// for mqtt. When the url's path names a receiver (Compass's \
                /api/input...), the profile it needs is suggested, never applied silently: \
                give --profile.

                The destination gets the points logged from now on (its cursor is placed \
                at the journal's end); --from-start sends it every record still in the \
                journal. 'overland destination set NAME KEY VALUE' changes the rest.

                Examples:
                  overland destination add wayfinder \\
                      https://wayfinder.example/api/wayfinder/overland/ \\
                      --profile wayfinder --token-stdin
                  overland destination add traccar http://traccar.example:5055 \\
                      --protocol traccar --from-start
                """)

        @OptionGroup var journalOptions: JournalOptions
        @Argument(help: ArgumentHelp("The destination's name, such as traccar.", valueName: "name")) var name: String
        @Argument(help: ArgumentHelp("Where points go.", valueName: "url")) var url: String
        @Option(name: .customLong("protocol"), help: ArgumentHelp("overland (default), owntracks, traccar or mqtt.", valueName: "protocol"),
                completion: Completions.protocols)
        var wireProtocol: String?
        @Option(help: ArgumentHelp("The receiver's quirks: \(ReceiverProfile.allowedNames).", valueName: "name"),
                completion: Completions.profiles)
        var profile: String?
        @Option(name: .customLong("device-id"), help: ArgumentHelp("The device id sent to this destination (default: the settings').", valueName: "id"))
        var deviceID: String?
        @Flag(name: .customLong("token-stdin"), help: "Read the token from the first line of standard input.")
        var tokenStdin = false
        @Flag(name: .customLong("from-start"), help: "Send every record still in the journal, not only those logged from now on.")
        var fromStart = false

        func run() throws {
            try reportingFailures(DestinationCommand.tool) {
                let name = try DestinationCommand.checkedName(self.name)
                guard name != Destination.defaultName else {
                    throw CommandFailure("'default' is the settings' destination: 'overland config set endpoint URL' sets its url",
                                         status: .usage)
                }
                let settings = try journalOptions.settings()
                let destination = try newDestination(name, settings: settings)

                let settingsOptions = journalOptions.settingsOptions
                // Fails on a damaged file before the journal is touched.
                if try settingsOptions.loadDestinationsFile().contains(where: { $0.name == name }) {
                    throw CommandFailure("destination '\(name)' exists: 'overland destination set \(name) KEY VALUE' changes it",
                                         status: .usage)
                }
                let journalPath = journalOptions.path(with: settings)
                let start = try DestinationCursors.add(destination, destinationsPath: settingsOptions.destinationsPath, journalPath: journalPath,
                                                       fromStart: fromStart, defaultConfigured: Destination(settings: settings) != nil,
                                                       origin: JournalOrigin.check(journal:acceptCopy:))
                Terminal.line("added " + DestinationText.summary(destination))
                Terminal.line(start.description(fromStart: fromStart))
                if profile == nil, let suggestion = ReceiverProfile.suggested(forURL: destination.url) {
                    Terminal.error("\(DestinationCommand.tool): note: \(suggestion.reason): 'overland destination set \(name) profile "
                                   + "\(suggestion.profile.name)' applies the \(suggestion.profile.name) profile (not applied)")
                }
            }
        }

        /// The destination the options describe (`Destination.adding`); a value refused is a usage error.
        private func newDestination(_ name: String, settings: Settings) throws -> Destination {
            let token: (() throws -> String)? = tokenStdin ? { try ConfigInput.firstLine() } : nil
            do {
                return try Destination.adding(name, url: url, protocol: wireProtocol, profile: profile, deviceID: deviceID,
                                              token: token, settings: settings)
            } catch let error as SettingsError {
                throw error.usageFailure
            }
        }
    }

    struct SetValue: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Change one key of a destination.",
            discussion: DestinationText.keysHelp + """
                 A key the destination's protocol does not take is refused. Values are \
                checked as 'overland config set' checks them.

                NAME default changes the settings file: 'destination set default url URL' \
                is 'config set endpoint URL'. The default destination speaks overland.

                Prints what changed; a token is shown as set or not set.

                Examples:
                  overland destination set traccar url http://traccar.example:5055
                  overland destination set wayfinder send_interval 1m
                  pass show traccar | overland destination set home token --stdin
                """)

        @OptionGroup var settingsOptions: SettingsOptions
        @Argument(help: ArgumentHelp("The destination.", valueName: "name"), completion: Completions.destinationNames) var name: String
        @Argument(help: ArgumentHelp("The key, such as url or batch_size.", valueName: "key"), completion: Completions.destinationKeys)
        var key: String
        @Argument(help: ArgumentHelp("The new value.", valueName: "value")) var value: String?
        @Flag(name: [.long, .customLong("token-stdin")], help: "Read the value from the first line of standard input instead of the command line.") var stdin = false

        func validate() throws {
            if value == nil && !stdin { throw ValidationError("missing <value> (or --stdin to read it from standard input)") }
            if value != nil && stdin { throw ValidationError("give <value> or --stdin, not both") }
        }

        func run() throws {
            try reportingFailures(DestinationCommand.tool) {
                let name = try DestinationCommand.checkedName(self.name)
                let key: DestinationKey
                do throws(SettingsError) { key = try DestinationKey(named: self.key) } catch { throw error.usageFailure }
                let text = try value ?? ConfigInput.firstLine()
                if name == Destination.defaultName {
                    try setDefault(key, text)
                    return
                }
                let settings = try settingsOptions.load()
                var changes: [SettingChange] = []
                var current: Destination?
                _ = try DestinationsFile.update(path: settingsOptions.destinationsPath) { destinations in
                    guard let index = destinations.firstIndex(where: { $0.name == name }) else {
                        throw DestinationSelectionError.unknown(name, among: destinations, withDefault: true)
                    }
                    let old = destinations[index]
                    do throws(SettingsError) { try key.set(text, in: &destinations[index], settings: settings) } catch { throw error.usageFailure }
                    changes = destinations[index].differences(from: old)
                    current = destinations[index]
                }
                let unchanged = "\(name).\(key.name): \(current.map { DestinationText.shown(key, in: $0) } ?? "") (unchanged)"
                SettingsText.changeLines(changes, nothing: unchanged).forEach(Terminal.line)
            }
        }

        /// The default destination is the settings file: its keys are settings keys.
        private func setDefault(_ key: DestinationKey, _ text: String) throws {
            guard let settingsName = key.settingsKey else {
                throw CommandFailure(
                    "the default destination (the settings' endpoint) speaks overland: it has no \(key.name) (\(key.takenBy) takes it); "
                        + "'overland destination add NAME URL --protocol ...' adds a destination that speaks another protocol",
                    status: .usage)
            }
            _ = try settingsOptions.set(try CommandLineSettings.key(settingsName), to: text)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the destinations: name, protocol, url, profile.",
            discussion: """
                One line per destination, the default one (the settings' endpoint) first. \
                Urls are shown without their query and user information, where a token may \
                ride. With --json, an array of objects with every key (token: true or false).

                Examples:
                  overland destination list
                  overland destination list --json | jq -r '.[].name'
                """)

        @OptionGroup var settingsOptions: SettingsOptions
        @Flag(help: "Print a JSON array instead of text, for scripts.") var json = false

        func run() throws {
            try reportingFailures(DestinationCommand.tool) {
                let destinations = try settingsOptions.destinations(settings: try settingsOptions.load())
                if json {
                    Terminal.output(DestinationText.json(destinations))
                    return
                }
                if destinations.isEmpty {
                    Terminal.line("no destinations: 'overland config set endpoint URL' sets the default one, "
                                  + "'overland destination add NAME URL' adds others")
                    return
                }
                DestinationText.list(destinations).forEach(Terminal.line)
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show every key of one destination.",
            discussion: """
                One line per key its protocol takes. The token shows as set or not set; the \
                url without its query and user information.

                Example:
                  overland destination show traccar
                """)

        @OptionGroup var settingsOptions: SettingsOptions
        @Argument(help: ArgumentHelp("The destination.", valueName: "name"), completion: Completions.destinationNames) var name: String

        func run() throws {
            try reportingFailures(DestinationCommand.tool) {
                let name = try DestinationCommand.checkedName(self.name)
                let destinations = try settingsOptions.destinations(settings: try settingsOptions.load())
                guard let destination = destinations.first(where: { $0.name == name }) else {
                    throw DestinationSelectionError.unknown(name, among: destinations)
                }
                DestinationText.keys(of: destination).forEach(Terminal.line)
                if destination.isDefault {
                    Terminal.line("(the settings file's endpoint, token...: 'overland config' changes them too)")
                }
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a destination, its cursor and its sync state.",
            discussion: """
                Deletes the destination from destinations.json, then its cursor and its \
                state file from the configured journal, and the sealed segments only it \
                still needed (once older than retention_days, as a sync would). Points it had not received are not \
                sent anywhere else. Run again on a name whose removal was interrupted, it \
                deletes the cursor left behind; 'remove default' deletes the default \
                destination's cursor once no endpoint is set. While overland-sync sends from the journal, \
                nothing is removed and the exit status is 75: run it again when the sync ends.

                Example:
                  overland destination remove traccar
                """)

        @OptionGroup var journalOptions: JournalOptions
        @Argument(help: ArgumentHelp("The destination.", valueName: "name"), completion: Completions.namedDestinations) var name: String

        func run() throws {
            try reportingFailures(DestinationCommand.tool) {
                let name = try DestinationCommand.checkedName(self.name)
                let settings = try journalOptions.settings()
                // Without an endpoint, 'default' is no destination: what its cursor holds is released.
                guard name != Destination.defaultName || Destination(settings: settings) == nil else {
                    throw CommandFailure("'default' is the settings' destination: 'overland config unset endpoint' stops sending to it",
                                         status: .usage)
                }
                let settingsOptions = journalOptions.settingsOptions
                let (configured, released) = try DestinationCursors.remove(
                    name, destinationsPath: settingsOptions.destinationsPath, journalPath: journalOptions.path(with: settings),
                    keepSeconds: Int64(settings.retentionDays) * 86_400) { try settingsOptions.destinations(settings: settings).map(\.name) }
                guard configured || released else {
                    throw DestinationSelectionError.unknown(name, among: try settingsOptions.destinations(settings: settings))
                }
                Terminal.line(configured ? "removed \(name)" : "removed the cursor left behind by \(name)")
            }
        }
    }

    /// The configured destination `name`, or a usage error naming those configured.
    static func configured(_ name: String, settings: Settings, options: SettingsOptions) throws -> Destination {
        let destinations = try options.destinations(settings: settings)
        guard let destination = destinations.first(where: { $0.name == name }) else {
            throw DestinationSelectionError.unknown(name, among: destinations)
        }
        return destination
    }
}
