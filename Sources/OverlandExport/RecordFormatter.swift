import OverlandJSON
import OverlandProtocol

/// Writes one export format: a head, one entry per record, a tail, into a byte buffer.
protocol RecordFormatter {
    mutating func writeHead(into output: inout [UInt8])
    /// Writes the record if the format takes it; false when it was left out.
    mutating func write(_ record: ExportRecord, into output: inout [UInt8]) -> Bool
    mutating func writeTail(into output: inout [UInt8])
}

/// A stored record on its way out: its line, parsed JSON, and the location it holds, if any.
struct ExportRecord {
    var line: ArraySlice<UInt8>
    var json: JSONValue
    var location: LocationFeature?

    /// The record's time: a location's or action's `timestamp`, a trip's `end`, a visit's
    /// `departure` or else `arrival`.
    var time: Int64? {
        if let location { return location.timestamp }
        guard let properties = json["properties"] else { return nil }
        for key in ["timestamp", "end", "departure", "arrival", "start"] {
            if let text = properties[key]?.string, let time = ISO8601UTC.parse(text) { return time }
        }
        return nil
    }
}

extension Array where Element == UInt8 {
    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }

    mutating func append(_ text: String) {
        append(contentsOf: text.utf8)
    }

    mutating func appendDecimal(_ value: Double, maxFractionDigits: Int) {
        var writer = JSONWriter(bytes: [])
        writer.appendDecimal(value, maxFractionDigits: maxFractionDigits)
        append(contentsOf: writer.bytes)
    }
}
