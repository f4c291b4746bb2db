import OverlandJSON
import OverlandProtocol

extension Trip {
    /// `overland trip`: "bicycle trip since ID (12 min 3 s): 4.2 km, 310 points".
    public func line(_ summary: TripSummary, now: Int64) -> String {
        "\(mode) trip since \(id) (\(Format.duration(now - start))): "
            + "\(Format.distance(summary.distance)), \(Plural.count(summary.points, "point"))"
    }

    /// `overland trip --json`: mode, start, duration, distance and points, one line.
    public func json(_ summary: TripSummary, now: Int64) -> String {
        var writer = JSONWriter()
        writer.appendRaw(#"{"mode":"#)
        writer.appendString(mode)
        writer.appendRaw(#","start":"#)
        writer.appendString(id)
        writer.appendRaw(#","duration":"#)
        writer.appendInteger(max(now - start, 0))
        writer.appendRaw(#","distance":"#)
        writer.appendInteger(TripRecord.wholeMetres(summary.distance))
        writer.appendRaw(#","points":"#)
        writer.appendInteger(summary.points)
        writer.appendRaw("}\n")
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
