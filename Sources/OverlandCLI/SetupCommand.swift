import ArgumentParser
import OverlandSettings

/// `overland setup LINK`: applies a setup link, the way fleets provision devices.
public struct SetupCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "setup",
        abstract: "Apply a setup link: endpoint, token and device id in one step.",
        discussion: """
            A setup link is overland://setup?url=URL&token=TOKEN&device_id=ID&unique_id=yes \
            (protocol section 8), one per device. The url is percent-encoded: inside it, \
            '&' is %26, '#' is %23, '%' is %25 (a template %TS is %25TS) and a space is %20. \
            The endpoint and token are always replaced (a link without a token clears the old \
            one, so that it never reaches the new server); device_id and unique_id (yes or \
            no) change only when the link names them. Other settings are left alone.

            Prints what changed, the token redacted; ignored parameters are reported on \
            standard error. Quote the link: the shell reads '&' and '?' itself. To keep the \
            token out of the shell history and the process list, give --stdin and pipe the \
            link in.

            Examples:
              overland setup 'overland://setup?url=https%3A%2F%2Fgps.example&token=s3cret'
              overland setup 'overland://setup?url=https://gps.example&unique_id=yes'
              overland setup --stdin < van.link

            Exit status: 0 done; 64 a bad link; 74 the file cannot be read or written; \
            77 permission denied; 78 the settings file is malformed (it is left as it is).
            """
    )

    @OptionGroup var settingsOptions: SettingsOptions
    @Argument(help: ArgumentHelp("The setup link, quoted: overland://setup?url=...", valueName: "link"))
    var link: String?
    @Flag(help: "Read the link from the first line of standard input instead of the command line.")
    var stdin = false

    public init() {}

    public func validate() throws {
        if link == nil && !stdin { throw ValidationError("missing <link> (or --stdin to read it from standard input)") }
        if link != nil && stdin { throw ValidationError("give <link> or --stdin, not both") }
    }

    public func run() throws {
        try reportingFailures("overland setup") {
            let setup = try CommandLineSettings.setupLink(link ?? ConfigInput.firstLine())
            for warning in setup.warnings {
                Terminal.error("overland setup: warning: " + warning.trimmingPrefix("setup link: "))
            }
            var clearedToken = false
            let (_, changes) = try settingsOptions.update { settings in
                clearedToken = settings.token != nil && setup.token == nil
                setup.apply(to: &settings)
            }
            for warning in setup.appliedWarnings(link: link, clearedToken: clearedToken) {
                Terminal.error("overland setup: warning: " + warning)
            }
            SettingsText.changeLines(changes, nothing: "nothing changed: the settings already match the link").forEach(Terminal.line)
        }
    }
}
