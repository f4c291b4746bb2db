import OverlandJSON

extension LocationFeature {
    /// The timestamp of a location point as this package writes it (a Feature with Point
    /// geometry whose properties begin with `timestamp`), without parsing the whole line;
    /// nil for any other record (actions, visits, trips) or another writer's layout.
    public static func pointTimestamp(in line: some Collection<UInt8>) -> Int64? {
        if let time = line.withContiguousStorageIfAvailable({ pointTimestamp(in: UnsafeRawBufferPointer($0)) }) { return time }
        return Array(line).withUnsafeBytes { pointTimestamp(in: $0) }
    }

    /// `pointTimestamp(in:)` on bytes in memory: the one every record of a journal goes
    /// through in `journal stats` and a time index rebuild. (Over a generic collection it
    /// was unspecialised across the module boundary: 10 s for a million records.)
    public static func pointTimestamp(in line: UnsafeRawBufferPointer) -> Int64? {
        guard line.starts(with: pointPrefix) else { return nil }
        var rest = line[pointPrefix.count...]
        // The coordinates are two numbers: at most a few dozen bytes before the marker.
        guard let close = rest.prefix(80).firstIndex(of: UInt8(ascii: "]")) else { return nil }
        rest = rest[close...]
        guard rest.starts(with: timestampMarker) else { return nil }
        let start = rest.startIndex + timestampMarker.count
        let end = min(rest.endIndex, start + ISO8601UTC.formattedLength)
        return ISO8601UTC.parse(UnsafeRawBufferPointer(rebasing: line[start..<end]).assumingMemoryBound(to: UInt8.self))
    }

    private static let pointPrefix = Array(#"{"type":"Feature","geometry":{"type":"Point","coordinates":["#.utf8)
    private static let timestampMarker = Array(#"]},"properties":{"timestamp":""#.utf8)
}
