import OverlandJSON
import OverlandProtocol

/// GPX 1.1 (topografix.com/GPX/1/1), valid against the official schema: one `trk` whose
/// `trkseg`s hold the points, each `trkpt` with `ele` (when the altitude is known) and
/// `time`, and speed and course in Garmin's TrackPointExtension v2 inside `extensions`
/// (another namespace, as the schema requires; gpsbabel and most tools read it).
struct GPXFormatter: RecordFormatter {
    static let namespace = "http://www.topografix.com/GPX/1/1"
    static let trackPointExtension = "http://www.garmin.com/xmlschemas/TrackPointExtension/v2"

    var creator: String
    var trackName: String
    var segmentGap: Int64
    private var lastTime: Int64?
    private var segmentOpen = false

    init(creator: String, trackName: String, segmentGap: Int64) {
        self.creator = creator
        self.trackName = trackName
        self.segmentGap = segmentGap
    }

    func writeHead(into output: inout [UInt8]) {
        output.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"")
        Self.appendEscaped(creator, to: &output)
        output.append("\" xmlns=\"http://www.topografix.com/GPX/1/1\"")
        output.append(" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"")
        output.append(" xmlns:gpxtpx=\"http://www.garmin.com/xmlschemas/TrackPointExtension/v2\"")
        output.append(" xsi:schemaLocation=\"http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd\">\n")
        output.append("<trk>\n<name>")
        Self.appendEscaped(trackName, to: &output)
        output.append("</name>\n")
    }

    mutating func write(_ record: ExportRecord, into output: inout [UInt8]) -> Bool {
        guard let point = record.location, point.latitude.isFinite, point.longitude.isFinite,
              (-90...90).contains(point.latitude), (-180...180).contains(point.longitude) else { return false }
        if let lastTime, point.timestamp - lastTime > segmentGap || point.timestamp < lastTime {
            output.append("</trkseg>\n")
            segmentOpen = false
        }
        if !segmentOpen {
            output.append("<trkseg>\n")
            segmentOpen = true
        }
        lastTime = point.timestamp
        output.append("<trkpt lat=\"")
        output.appendDecimal(point.latitude, maxFractionDigits: 7)
        output.append("\" lon=\"")
        // The schema's longitude stops short of 180: the same meridian is -180.
        output.appendDecimal(point.longitude == 180 ? -180 : point.longitude, maxFractionDigits: 7)
        output.append("\">")
        if let altitude = point.knownAltitude {
            output.append("<ele>")
            output.append(String(altitude))
            output.append("</ele>")
        }
        output.append("<time>")
        ISO8601UTC.append(point.timestamp, to: &output)
        output.append("</time>")
        let speed = point.speed >= 0 && point.speed.isFinite ? point.speed : nil
        let course = point.course >= 0 && point.course < 360 ? point.course : nil
        if speed != nil || course != nil {
            output.append("<extensions><gpxtpx:TrackPointExtension>")
            if let speed {
                output.append("<gpxtpx:speed>")
                output.appendDecimal(speed, maxFractionDigits: 2)
                output.append("</gpxtpx:speed>")
            }
            if let course {
                output.append("<gpxtpx:course>")
                output.append(String(course))
                output.append("</gpxtpx:course>")
            }
            output.append("</gpxtpx:TrackPointExtension></extensions>")
        }
        output.append("</trkpt>\n")
        return true
    }

    mutating func writeTail(into output: inout [UInt8]) {
        if segmentOpen { output.append("</trkseg>\n") }
        output.append("</trk>\n</gpx>\n")
    }

    /// XML text or attribute content: the five markup characters escaped, and control
    /// characters and bidirectional overrides dropped (`PrintableText`: XML 1.0 cannot hold
    /// most, and none may reach a terminal through `cat`); tab and line breaks are kept.
    static func appendEscaped(_ raw: String, to output: inout [UInt8]) {
        let text = PrintableText.sanitised(raw, replacement: "")
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): output.append("&amp;")
            case UInt8(ascii: "<"): output.append("&lt;")
            case UInt8(ascii: ">"): output.append("&gt;")
            case UInt8(ascii: "\""): output.append("&quot;")
            case UInt8(ascii: "'"): output.append("&apos;")
            case 0x09, 0x0A, 0x0D: output.append(byte)
            case ..<0x20: continue
            default: output.append(byte)
            }
        }
    }
}
