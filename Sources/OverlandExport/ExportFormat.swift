import OverlandJSON
import OverlandJournal

/// The formats `overland export` writes: the one table. Each case's name, title and
/// formatter are here; the command's help, its check of `--format` and the completions
/// are derived from ``allCases``.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// GPX 1.1: one track, a track segment per stretch without a long gap; speed and course
    /// in Garmin's TrackPointExtension v2.
    case gpx
    /// A GeoJSON FeatureCollection of the stored Features, byte for byte.
    case geojson
    /// CSV with a header line (RFC 4180).
    case csv

    /// The usual file name extension.
    public var fileExtension: String { rawValue }

    /// The format's name in a sentence.
    public var title: String {
        switch self {
        case .gpx: "GPX"
        case .geojson: "GeoJSON"
        case .csv: "CSV"
        }
    }

    /// What the format holds, for `overland export --help`.
    public var help: String {
        switch self {
        case .gpx:
            "GPX 1.1 holds the points as one track (a new segment after a gap of 15 minutes), with speed and course "
                + "in Garmin's TrackPointExtension v2"
        case .geojson:
            "GeoJSON is a FeatureCollection of the stored Features as they are (trip, visit and action records "
                + "included unless --points-only)"
        case .csv:
            "CSV has a header line and one row per point, a text field a spreadsheet would run as a formula "
                + "(=, +, -, @, tab, CR first) prefixed with ' and quoted"
        }
    }

    /// Every format's title: "GPX, GeoJSON or CSV".
    public static var titles: String { Plural.list(allCases.map(\.title)) }
    /// Every value `--format` takes: "gpx, geojson or csv".
    public static var names: String { Plural.list(allCases.map(\.rawValue)) }

    /// The formatter that writes this format.
    func formatter(_ journal: Journal, _ options: ExportOptions) -> any RecordFormatter {
        switch self {
        case .gpx:
            let device = journal.manifest.deviceID
            return GPXFormatter(creator: options.creator, trackName: device.isEmpty ? "overland" : "overland \(device)",
                                segmentGap: options.segmentGapSeconds)
        case .geojson:
            return GeoJSONFormatter(pointsOnly: options.pointsOnly)
        case .csv:
            return CSVFormatter()
        }
    }
}
