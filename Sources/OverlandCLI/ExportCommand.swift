#if canImport(Glibc)
import Glibc
#endif
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
            let destination = try ExportDestination(path: output)
            let printer = IssuePrinter(tool: "overland export")
            do {
                let summary: ExportSummary
                do {
                    summary = try Exporter.export(journal, options: options, onIssue: printer.handler) { bytes in
                        try destination.write(bytes)
                    }
                } catch let error as ExportSortError {
                    throw CommandFailure(error.description, status: error.kind == .io ? .ioError : .tryLater)
                }
                try destination.finish()
                if output != nil {
                    Terminal.error("overland export: \(summary.written) of \(Plural.count(summary.records, "record")) written to '\(output!)'")
                }
                if summary.outOfOrder > 0, let earliest = summary.earliest, let latest = summary.latest {
                    Terminal.error("overland export: the journal is not in time order: \(Plural.count(summary.outOfOrder, "point")) earlier " +
                                   "than a point logged before them; written oldest first all the same (the points span " +
                                   "\(ISO8601UTC.string(from: earliest)) to \(ISO8601UTC.string(from: latest)))")
                }
            } catch ExportDestination.Closed.reader {
                // The reader went away (`| head`): nothing more to say.
            }
        }
    }
}

/// Standard output or a new private file, written with plain `write` calls.
final class ExportDestination {
    enum Closed: Error { case reader }

    private let fd: Int32
    private let path: String?

    /// `exclusive`: a file that exists is refused (`overland map` without `--force`).
    init(path: String?, exclusive: Bool = false) throws {
        self.path = path
        guard let path else {
            fd = 1
            return
        }
        let opened = open(path, O_WRONLY | O_CREAT | (exclusive ? O_EXCL : O_TRUNC) | O_CLOEXEC, 0o600)
        if opened < 0 {
            let code = errno
            if code == EEXIST && exclusive {
                throw CommandFailure("'\(path)' exists: --force replaces it", status: .cannotCreate)
            }
            throw CommandFailure("cannot create '\(path)': \(SystemErrorText.of(code))",
                                 status: code == EACCES ? .noPermission : .cannotCreate)
        }
        // An existing file keeps its mode through O_CREAT: make it private as promised. Only
        // a regular file (never a device such as /dev/stdout) is changed.
        var info = stat()
        if fstat(opened, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o7777 != 0o600,
           fchmod(opened, 0o600) != 0 {
            let code = errno
            close(opened)
            throw CommandFailure("cannot make '\(path)' private (mode 0600): \(SystemErrorText.of(code))",
                                 status: code == EPERM || code == EACCES ? .noPermission : .ioError)
        }
        fd = opened
    }

    deinit { if path != nil { close(fd) } }

    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE && path == nil { throw Closed.reader }
                throw failure("cannot write")
            }
            offset += written
        }
    }

    /// Makes a file durable; standard output needs nothing.
    func finish() throws {
        guard path != nil else { return }
        if fsync(fd) != 0 { throw failure("cannot sync") }
    }

    private func failure(_ operation: String) -> CommandFailure {
        let code = errno
        return CommandFailure("\(operation) '\(path ?? "standard output")': \(SystemErrorText.of(code))", status: .ioError)
    }
}
