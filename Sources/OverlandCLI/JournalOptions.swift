import ArgumentParser
import OverlandJournal
import OverlandSettings

/// `--journal DIR` and `--config FILE`, shared by every command that uses a journal: the
/// settings file may name the journal.
public struct JournalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The journal directory.",
        discussion: "Default: $OVERLAND_JOURNAL, else the settings' journal, else $XDG_DATA_HOME/overland/journal, else ~/.local/share/overland/journal.",
        valueName: "dir"))
    public var journal: String?

    @OptionGroup public var settingsOptions: SettingsOptions

    public init() {}

    /// The settings, with the environment applied.
    public func settings() throws -> Settings { try settingsOptions.load() }

    /// The journal path: the flag, else `OVERLAND_JOURNAL`, else the settings, else the default.
    public func path(with settings: Settings) -> String { settings.journalPath(flag: journal) }

    /// Opens the journal for reading; a missing one is a clear error.
    public func open() throws -> Journal {
        try Journal(path: path(with: settings()))
    }
}

/// Prints journal issues on stderr as they are found, counting them.
final class IssuePrinter: @unchecked Sendable {
    private(set) var count = 0
    let tool: String

    init(tool: String) { self.tool = tool }

    var handler: JournalIssueHandler {
        { [self] issue in
            count += 1
            // One issue, one line, whatever the names in it hold.
            Terminal.error("\(tool): \(issue)".replacing("\n", with: "?"))
        }
    }
}
