import ArgumentParser
import OverlandJournal

/// `--journal DIR`, shared by every command that reads or writes one journal.
public struct JournalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The journal directory.",
        discussion: "Default: $OVERLAND_JOURNAL, else $XDG_DATA_HOME/overland/journal, else ~/.local/share/overland/journal.",
        valueName: "dir"))
    public var journal: String?

    public init() {}

    /// The journal path these options name.
    public var path: String { Paths.journal(flag: journal) }

    /// Opens the journal for reading; a missing one is a clear error.
    public func open() throws -> Journal {
        try Journal(path: path)
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
            Terminal.error("\(tool): \(issue)")
        }
    }
}
