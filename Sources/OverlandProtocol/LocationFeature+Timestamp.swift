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
        timestampAndEnd(in: line)?.time
    }

    /// The time index's key of a location point (journal-format.md, "The time index"): its
    /// timestamp and its `device_id` exactly as written, the JSON string's escaped bytes
    /// between the quotes (what ``deviceKey(_:)`` makes of a configured id); nil for a
    /// record that is not a location point, or one without a `device_id` string.
    public static func pointKey(in line: ArraySlice<UInt8>) -> (second: Int64, device: ArraySlice<UInt8>)? {
        let found = line.withUnsafeBytes { bytes -> (Int64, Range<Int>)? in
            guard let (time, end) = timestampAndEnd(in: bytes),
                  let device = deviceRange(in: bytes, from: end) else { return nil }
            return (time, device)
        }
        guard let (time, range) = found else { return nil }
        let base = line.startIndex
        return (time, line[(base + range.lowerBound)..<(base + range.upperBound)])
    }

    /// A configured device id as the time index keys it: its JSON string's bytes without
    /// the quotes, as every Feature writes it in `device_id`.
    public static func deviceKey(_ deviceID: String) -> [UInt8] {
        var writer = JSONWriter()
        writer.appendString(deviceID)
        return Array(writer.bytes.dropFirst().dropLast())
    }

    private static func timestampAndEnd(in line: UnsafeRawBufferPointer) -> (time: Int64, end: Int)? {
        guard line.starts(with: pointPrefix) else { return nil }
        var rest = line[pointPrefix.count...]
        // The coordinates are two numbers: at most a few dozen bytes before the marker.
        guard let close = rest.prefix(80).firstIndex(of: UInt8(ascii: "]")) else { return nil }
        rest = rest[close...]
        guard rest.starts(with: timestampMarker) else { return nil }
        let start = rest.startIndex + timestampMarker.count
        let end = min(rest.endIndex, start + ISO8601UTC.formattedLength)
        guard let time = ISO8601UTC.parse(UnsafeRawBufferPointer(rebasing: line[start..<end]).assumingMemoryBound(to: UInt8.self))
        else { return nil }
        return (time, end)
    }

    /// The escaped bytes of the `device_id` string after `offset`. The key's bytes,
    /// `,"device_id":"`, cannot occur inside a JSON string (a quote there is escaped), and
    /// the properties before it are this package's fixed layout, so the first occurrence
    /// is the key.
    private static func deviceRange(in line: UnsafeRawBufferPointer, from offset: Int) -> Range<Int>? {
        let marker = deviceMarker
        guard marker.count <= line.count else { return nil }
        var index = offset
        let lastStart = line.count - marker.count
        while index <= lastStart {
            if line[index] == marker[0], line[index..<(index + marker.count)].elementsEqual(marker) {
                let start = index + marker.count
                var cursor = start
                while cursor < line.count {
                    switch line[cursor] {
                    case UInt8(ascii: "\\"): cursor += 2
                    case UInt8(ascii: "\""): return start..<cursor
                    default: cursor += 1
                    }
                }
                return nil
            }
            index += 1
        }
        return nil
    }

    private static let pointPrefix = Array(#"{"type":"Feature","geometry":{"type":"Point","coordinates":["#.utf8)
    private static let timestampMarker = Array(#"]},"properties":{"timestamp":""#.utf8)
    private static let deviceMarker = Array(#","device_id":""#.utf8)
}
