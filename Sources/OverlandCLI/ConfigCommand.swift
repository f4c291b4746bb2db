import ArgumentParser
import OverlandSettings

/// `overland config`: show and change the settings file.
public struct ConfigCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show and change the settings.",
        discussion: """
            overland, overland-log and overland-sync share one settings file, JSON: \
            --config FILE, else $OVERLAND_CONFIG, else $XDG_CONFIG_HOME/overland/settings.json, \
            else ~/.config/overland/settings.json. Changes are saved atomically, mode 0600; \
            nothing is written until something changes.

            Keys and values are named as in the protocol's `set`: send_interval 5m, \
            logging_mode owntracks, batch_size 500, min_distance 50m. The main profile's keys \
            are bare (main.logging_mode works too); the trip profile, in force while a trip \
            runs, has trip. in front (trip.logging_mode). 'overland config keys' lists every \
            key with the values it allows.

            A settings file that cannot be read or parsed is an error naming the file and \
            the line; it is never replaced. These commands show and change the file alone: \
            $OVERLAND_URL, $OVERLAND_TOKEN, $OVERLAND_DEVICE_ID and $OVERLAND_JOURNAL override \
            it when the tools run, and are never copied into it.

            Examples:
              overland config                      (same as 'overland config list')
              overland config set batch_size 500
              overland config set trip.logging_mode owntracks
              overland config get endpoint
              overland config unset min_distance
              overland config preset battery-saving

            Exit status: 0 done; 64 a bad key, value or argument; 74 the file cannot be read \
            or written; 77 permission denied; 78 the settings file is malformed.
            """,
        subcommands: [List.self, Get.self, SetValue.self, Unset.self, Reset.self, ApplyPreset.self, Keys.self, Path.self],
        defaultSubcommand: List.self
    )

    /// The prefix of every message these commands print on standard error.
    static let tool = "overland config"

    /// The KEY argument of `get`, `set` and `unset`.
    static let keyHelp = ArgumentHelp("The setting, such as batch_size or trip.logging_mode ('overland config keys' lists them).",
                                      valueName: "key")

    public init() {}

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show every setting with its value, marking the defaults.",
            discussion: """
                One line per key, in the file's order: the key, its value ((none) when not \
                set) and (default) when it holds the default. The token is shown as •••• when \
                set, no part of it ('overland config get token' prints it in full). Without \
                a settings file every value is a default; no file is created.

                With --json, one JSON object maps each key to {"value": TEXT or null, \
                "default": true or false}, values as 'overland config set' takes them.

                Examples:
                  overland config list
                  overland config list --json | jq -r '.batch_size.value'
                """)

        @OptionGroup var settingsOptions: SettingsOptions
        @Flag(help: "Print one JSON object instead of text, for scripts.") var json = false

        func run() throws {
            try reportingFailures(ConfigCommand.tool) {
                let entries = SettingKey.list(try settingsOptions.loadFile())
                if json {
                    Terminal.output(SettingsText.json(entries))
                } else {
                    SettingsText.table(entries).forEach(Terminal.line)
                }
                for note in SettingsText.environmentNotes(for: entries.map(\.key.name)) {
                    Terminal.error("\(ConfigCommand.tool): \(note)")
                }
            }
        }
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the value of one setting.",
            discussion: """
                Prints the value alone, as 'overland config set' takes it, or an empty line \
                when it is not set. The token is printed in full, for scripts; mind where the \
                output goes.

                Examples:
                  overland config get batch_size
                  overland config get trip.logging_mode
                  curl -H "Authorization: Bearer $(overland config get token)" ...
                """)

        @OptionGroup var settingsOptions: SettingsOptions
        @Argument(help: ConfigCommand.keyHelp, completion: Completions.settingKeys) var key: String

        func run() throws {
            try reportingFailures(ConfigCommand.tool) {
                let key = try CommandLineSettings.key(key)
                Terminal.line(key.get(from: try settingsOptions.loadFile()))
                for note in SettingsText.environmentNotes(for: [key.name]) {
                    Terminal.error("\(ConfigCommand.tool): \(note)")
                }
            }
        }
    }

    struct SetValue: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Change one setting and save the file.",
            discussion: """
                Prints what changed on one line (batch_size: 200 -> 500), the token redacted. \
                A bad key or value changes nothing: the message names close keys or the values \
                allowed. Choices match in any case; switches take true/false, on/off or \
                yes/no; the wifi zone is SSID,LATITUDE,LONGITUDE (or set one member, \
                wifi_zone.ssid). To keep a token out of the shell history and the process \
                list, give --stdin and type or pipe it.

                Examples:
                  overland config set batch_size 500
                  overland config set min_distance 50m
                  overland config set trip.logging_mode owntracks
                  overland config set include_unique_id yes
                  overland config set endpoint 'https://gps.example/in?ts=%TS&lat=%LAT'
                  overland config set wifi_zone 'home,52.0907,5.1214'
                  pass show overland | overland config set token --stdin
                """)

        @OptionGroup var settingsOptions: SettingsOptions
        @Argument(help: ConfigCommand.keyHelp, completion: Completions.settingKeys) var key: String
        @Argument(help: ArgumentHelp("The new value, such as 500 or owntracks.", valueName: "value"))
        var value: String?
        @Flag(name: [.long, .customLong("token-stdin")], help: "Read the value from the first line of standard input instead of the command line.")
        var stdin = false

        func validate() throws {
            if value == nil && !stdin { throw ValidationError("missing <value> (or --stdin to read it from standard input)") }
            if value != nil && stdin { throw ValidationError("give <value> or --stdin, not both") }
        }

        func run() throws {
            try reportingFailures(ConfigCommand.tool) {
                let key = try CommandLineSettings.key(key)
                let settings = try settingsOptions.set(key, to: try value ?? ConfigInput.firstLine())
                if key.name == "endpoint", let hint = settings.profileHint {
                    Terminal.error("\(ConfigCommand.tool): \(hint)")
                }
            }
        }
    }

    struct Unset: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Put one setting back to its default and save the file.",
            discussion: """
                Prints what changed, the token redacted. Unsetting any member of the wifi zone \
                (wifi_zone.ssid...) removes the whole zone.

                Examples:
                  overland config unset min_distance
                  overland config unset trip.batch_size
                  overland config unset token
                """)

        @OptionGroup var settingsOptions: SettingsOptions
        @Argument(help: ConfigCommand.keyHelp, completion: Completions.settingKeys) var key: String

        func run() throws {
            try reportingFailures(ConfigCommand.tool) {
                let key = try CommandLineSettings.key(key)
                try settingsOptions.updatePrinting(unchanged: { SettingsText.unchanged(key, in: $0, "already the default") }) { settings in
                    key.unset(in: &settings)
                }
            }
        }
    }

    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Put every setting back to its default, endpoint and token included.",
            discussion: """
                Clears the endpoint, the token and the device id too, so it asks for --yes. \
                Prints what changed, the token redacted. A settings file that cannot be parsed \
                is not reset: fix it, or move it away by hand.

                Example:
                  overland config reset --yes
                """)

        @OptionGroup var settingsOptions: SettingsOptions
        @Flag(help: "Confirm: reset every setting, endpoint, token and device id included.") var yes = false

        func run() throws {
            try reportingFailures(ConfigCommand.tool) {
                guard yes else {
                    throw CommandFailure(
                        "reset puts every setting back to its default and clears the endpoint, token and device id; "
                            + "run 'overland config reset --yes' to go ahead", status: .usage)
                }
                try settingsOptions.updatePrinting(unchanged: { _ in "nothing changed: every setting holds its default" }) { settings in
                    settings = Settings()
                }
            }
        }
    }

    struct ApplyPreset: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "preset",
            abstract: "Apply a preset to the main profile and save the file.",
            discussion: """
                high-resolution: pause_automatically false, resume_with_geofence off, \
                tracking_mode standard, activity_type other, desired_accuracy best.
                battery-saving: pause_automatically true, resume_with_geofence 500m, \
                tracking_mode significant, activity_type other, desired_accuracy 100m.

                Other settings and the trip profile are left alone. Prints what changed.

                Examples:
                  overland config preset high-resolution
                  overland config preset battery-saving
                """)

        @OptionGroup var settingsOptions: SettingsOptions
        @Argument(help: ArgumentHelp("The preset: high-resolution or battery-saving.", valueName: "name"),
                  completion: Completions.presets)
        var name: String

        func run() throws {
            try reportingFailures(ConfigCommand.tool) {
                let preset = try CommandLineSettings.preset(name)
                try settingsOptions.updatePrinting(unchanged: { _ in "nothing changed: the settings already match \(preset.rawValue)" }) {
                    settings in preset.apply(to: &settings)
                }
            }
        }
    }

    struct Keys: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List every key with what it does, the values it allows and its default.",
            discussion: """
                Reads no file. Keys named trip.* apply while a trip runs; wifi_zone.* are the \
                members of the wifi zone, settable one by one once a zone exists.

                Example:
                  overland config keys | grep -A1 batch_size
                """)

        func run() {
            SettingsText.keyTable(SettingKey.all).forEach(Terminal.line)
        }
    }

    struct Path: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the settings file's path (it may not exist yet).",
            discussion: """
                Example:
                  ${EDITOR:-vi} "$(overland config path)"
                """)

        @OptionGroup var settingsOptions: SettingsOptions

        func run() {
            Terminal.line(settingsOptions.path)
        }
    }
}
