import OverlandJSON

extension LocationFeature {
    /// The timestamp of a location point as this package writes it (a Feature with Point
    /// geometry whose properties begin with `timestamp`), without parsing the whole line;
    /// nil for any other record (actions, visits, trips) or another writer's layout.
    public static func pointTimestamp(in line: some Collection<UInt8>) -> Int64? {
        let prefix = #"{"type":"Feature","geometry":{"type":"Point","coordinates":["#.utf8
        let marker = Array(#"]},"properties":{"timestamp":""#.utf8)
        guard line.starts(with: prefix) else { return nil }
        var rest = line.dropFirst(prefix.count)
        // The coordinates are two numbers: at most a few dozen bytes before the marker.
        guard let close = rest.prefix(80).firstIndex(of: UInt8(ascii: "]")) else { return nil }
        rest = rest[close...]
        guard rest.starts(with: marker) else { return nil }
        let time = rest.dropFirst(marker.count).prefix(ISO8601UTC.formattedLength)
        return ISO8601UTC.parse(time)
    }
}
