#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import OverlandExport
import OverlandJournal
import OverlandJSON
import OverlandMap

/// `overland map`: a journal as one self-contained HTML page or SVG picture (OverlandMap).
public struct MapCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "map",
        abstract: "Draw a journal's tracks as one HTML page or SVG picture that opens offline.",
        discussion: """
            Each UTC day (or trip, when its points carry one) is a track of its own colour, with a green start \
            and a black end; gaps (no point for longer than --gap) are dashed and listed, stops (within 50 m for \
            --stop or longer) are purple dots, and points not yet sent to a destination lie on an orange band, \
            its first one flagged with the destination's name. The HTML page shows a point's time, speed, accuracy \
            and device on hover or tap, and a table of the tracks and gaps; it requests nothing from anywhere (its \
            Content-Security-Policy forbids it) unless --tiles names a tile server. Times are UTC: --since and \
            --until take 2026-11-21 (the whole day) or 2026-11-21T05:17:12Z. A file that exists is kept unless \
            --force. To look at a Pi's map: scp it here, or see docs/map.md.
            """)

    @OptionGroup var journalOptions: JournalOptions

    @Option(help: ArgumentHelp("Only points at or after this time.", valueName: "time"))
    var since: String?

    @Option(help: ArgumentHelp("Only points at or before this time.", valueName: "time"))
    var until: String?

    @Option(help: ArgumentHelp("Only this device's points.", valueName: "id"))
    var device: String?

    @Option(help: ArgumentHelp("Only one trip: the last, or the Nth (from 1) of the points selected.", valueName: "last|N"))
    var trip: String?

    @Flag(help: "Only points not yet sent.")
    var unsent = false

    @Option(name: [.short, .long], help: ArgumentHelp("The file: .html or .svg (default overland-map.html).", valueName: "file"),
            completion: .file(extensions: ["html", "svg"]))
    var output = "overland-map.html"

    @Flag(help: "Replace the output file if it exists.")
    var force = false

    @Option(help: ArgumentHelp("Colour tracks by track (day or trip) or by speed.", valueName: "track|speed"))
    var color = "track"

    @Option(help: ArgumentHelp("A gap: no point for longer than this many seconds.", valueName: "seconds"))
    var gap: Int64 = 300

    @Option(help: ArgumentHelp("A stop: within 50 m for at least this many minutes.", valueName: "minutes"))
    var stop: Int64 = 5

    @Option(help: ArgumentHelp("A basemap: a tile url such as https://tile.example.org/{z}/{x}/{y}.png (the page then requests its tiles).",
                               valueName: "template"))
    var tiles: String?

    @Option(name: .customLong("tiles-attribution"), help: ArgumentHelp("The basemap's attribution, shown on the map.", valueName: "text"))
    var tilesAttribution: String?

    @Option(help: ArgumentHelp("The map's title (default: overland map of JOURNAL).", valueName: "text"))
    var title: String?

    public init() {}

    public func validate() throws {
        guard output.hasSuffix(".html") || output.hasSuffix(".htm") || output.hasSuffix(".svg") else {
            throw ValidationError("--output ends in .html or .svg, not '\(output)'")
        }
        if let trip, TripChoice(trip) == nil { throw ValidationError("--trip is last or a number from 1, not '\(trip)'") }
        guard MapOptions.Coloring(rawValue: color) != nil else { throw ValidationError("--color is track or speed, not '\(color)'") }
        guard (1...86_400 * 30).contains(gap) else { throw ValidationError("--gap is 1 to 2592000 seconds, not \(gap)") }
        guard (1...10_080).contains(stop) else { throw ValidationError("--stop is 1 to 10080 minutes, not \(stop)") }
        for (name, text) in [("--since", since), ("--until", until)] {
            if let text, ExportTime.parse(text, endOfDay: false) == nil {
                throw ValidationError("\(name) takes 2026-11-21 or 2026-11-21T05:17:12Z, not '\(text)'")
            }
        }
        if let start = since.flatMap({ ExportTime.parse($0, endOfDay: false) }), let end = until.flatMap({ ExportTime.parse($0, endOfDay: true) }),
           start > end {
            throw ValidationError("--since is after --until")
        }
        if let tiles, case .failure(let error) = TileTemplate.parse(tiles, attribution: tilesAttribution) {
            throw ValidationError("--tiles: \(error)")
        }
    }

    public func run() throws {
        try reportingFailures("overland map") {
            if !force, access(output, F_OK) == 0 { throw CommandFailure("'\(output)' exists: --force replaces it", status: .cannotCreate) }
            let journal = try journalOptions.open()
            var window = ExportOptions(format: .csv)
            window.from = since.flatMap { ExportTime.parse($0, endOfDay: false) }
            window.to = until.flatMap { ExportTime.parse($0, endOfDay: true) }
            window.unsentOnly = unsent
            let options = try mapOptions(journal)
            let printer = IssuePrinter(tool: "overland map")
            let summary: MapSummary
            do {
                summary = try MapDrawing.draw(journal, window: window, options: options, onIssue: printer.handler) { bytes in
                    if force, unlink(output) != 0, errno != ENOENT {
                        throw CommandFailure("cannot replace '\(output)': \(String(cString: strerror(errno)).lowercased())", status: .cannotCreate)
                    }
                    let destination = try ExportOutput(path: output, exclusive: true)
                    try destination.write(bytes)
                    try destination.finish()
                }
            } catch MapError.noPoints(let summary) {
                throw CommandFailure(summary.noPointsLine(journal: journal.path, since: since, until: until, device: device), status: .noInput)
            } catch MapError.noTrip(_, let trips) {
                throw CommandFailure(MapSummary.noTripLine(trip ?? "", trips: trips), status: .noInput)
            }
            Terminal.error("overland map: " + summary.writtenLine(to: output))
        }
    }

    /// The options from the flags and the journal's destinations (its named cursors).
    private func mapOptions(_ journal: Journal) throws -> MapOptions {
        var options = MapOptions()
        options.output = output.hasSuffix(".svg") ? .svg : .html
        options.coloring = MapOptions.Coloring(rawValue: color) ?? .track
        options.gapSeconds = gap
        options.stopSeconds = stop * 60
        options.device = device
        options.trip = trip.flatMap(TripChoice.init)
        if let tiles, case .success(let template) = TileTemplate.parse(tiles, attribution: tilesAttribution) { options.tiles = template }
        options.destinations = try MapOptions.destinations(of: journal)
        options.title = title ?? "overland map of \(journal.path)"
        return options
    }
}
