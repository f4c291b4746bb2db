/// The formats `overland export` writes.
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
}
