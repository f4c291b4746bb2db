#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ArgumentParser
import OverlandJournal
import OverlandSettings

/// `--journal DIR` and `--config FILE`, shared by every command that uses a journal: the
/// settings file may name the journal.
public struct JournalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The journal directory.",
        discussion: JournalOptions.defaultHelp,
        valueName: "dir"), completion: .directory)
    public var journal: String?

    @OptionGroup public var settingsOptions: SettingsOptions

    /// Where the journal is when no flag names it, as every command's help says it.
    static let defaultHelp = "Default: $OVERLAND_JOURNAL, else the settings' journal, else $XDG_DATA_HOME/overland/journal, else ~/.local/share/overland/journal."

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

/// Prints journal issues on stderr as they are found, counting them. An issue already
/// printed is not printed again: a run over several destinations reads a damaged record
/// once for each, and one line says it. The destinations' tasks report concurrently, so
/// the count and the lines seen are kept under a lock.
final class IssuePrinter: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var printed = 0
    private var seen = Set<String>()
    /// Lines remembered, at most: a journal damaged everywhere prints each issue, and the
    /// memory stays bounded.
    private static let rememberedLines = 10_000
    let tool: String

    init(tool: String) {
        self.tool = tool
        pthread_mutex_init(&mutex, nil)
    }

    deinit { pthread_mutex_destroy(&mutex) }

    /// The issues printed (each distinct one once).
    var count: Int {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return printed
    }

    var handler: JournalIssueHandler {
        { [self] issue in
            // One issue, one line, whatever the names in it hold.
            let line = "\(tool): \(issue)".replacing("\n", with: "?")
            pthread_mutex_lock(&mutex)
            defer { pthread_mutex_unlock(&mutex) }
            guard !seen.contains(line) else { return }
            if seen.count < Self.rememberedLines { seen.insert(line) }
            printed += 1
            Terminal.error(line)
        }
    }
}
