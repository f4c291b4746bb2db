import ArgumentParser
import OverlandExport
import OverlandJournal
import OverlandJSON

/// `overland export`: a journal's points in each format of `ExportFormat`.
public struct ExportCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a journal's points as \(ExportFormat.titles).",
        discussion: """
            Streams every record the journal still holds (sent ones that retention kept included; --unsent for \
            the rest alone), in the order logged (oldest first, unless an old capture was imported after newer \
            points: then a warning on standard error says so), in constant memory. \
            \(ExportFormat.allCases.map(\.help).joined(separator: "; ")). Times are UTC: --from and --to take \
            2026-11-21 (the whole day) or 2026-11-21T05:17:12Z, both ends included.
            """)

    @OptionGroup var journalOptions: JournalOptions

    @Option(help: ArgumentHelp("The format: \(ExportFormat.names).", valueName: "format"), completion: Completions.exportFormats)
    var format: String

    @Option(help: ArgumentHelp("Only records at or after this time.", valueName: "time"))
    var from: String?

    @Option(help: ArgumentHelp("Only records at or before this time.", valueName: "time"))
    var to: String?

    @Option(name: [.short, .long], help: ArgumentHelp("Write to this file (mode 0600) instead of standard output.", valueName: "file"),
            completion: .file())
    var output: String?

    @Flag(help: "Only records not yet sent to every configured destination.")
    var unsent = false

    @Flag(name: .customLong("points-only"), help: "GeoJSON: locations only, without trip, visit and action records.")
    var pointsOnly = false

    public init() {}

    public func validate() throws {
        guard ExportFormat(rawValue: format) != nil else { throw ValidationError("--format is \(ExportFormat.names), not '\(format)'") }
        for (name, text) in [("--from", from), ("--to", to)] {
            if let text, ExportTime.parse(text, endOfDay: false) == nil {
                throw ValidationError("\(name) takes 2026-11-21 or 2026-11-21T05:17:12Z, not '\(text)'")
            }
        }
        if let start = from.flatMap({ ExportTime.parse($0, endOfDay: false) }), let end = to.flatMap({ ExportTime.parse($0, endOfDay: true) }),
           start > end {
            throw ValidationError("--from is after --to")
        }
    }

    public func run() throws {
        try reportingFailures("overland export") {
            // --unsent: what some configured destination has not had acknowledged.
            var options = ExportOptions(format: ExportFormat(rawValue: format)!)
            let journal: Journal
            if unsent {
                let opened = try journalOptions.openWithReaders()
                journal = opened.journal
                options.readers = opened.readers ?? []
            } else {
                journal = try journalOptions.open()
            }
            options.from = from.flatMap { ExportTime.parse($0, endOfDay: false) }
            options.to = to.flatMap { ExportTime.parse($0, endOfDay: true) }
            options.unsentOnly = unsent
            options.pointsOnly = pointsOnly
            options.creator = "overland \(OverlandVersion.current)"
            let destination = try ExportOutput(path: output)
            let printer = IssuePrinter(tool: "overland export")
            do {
                let summary = try Exporter.export(journal, options: options, onIssue: printer.handler) { bytes in
                    try destination.write(bytes)
                }
                try destination.finish()
                if let output { Terminal.error("overland export: " + summary.writtenLine(to: output)) }
                if let line = summary.outOfOrderLine { Terminal.error("overland export: " + line) }
            } catch ExportOutput.Closed.reader {
                // The reader went away (`| head`): nothing more to say.
            }
        }
    }
}
