/// A GeoJSON FeatureCollection (RFC 7946) of the stored Features, each exactly as stored
/// and sent, one per line.
struct GeoJSONFormatter: RecordFormatter {
    var pointsOnly: Bool
    private var first = true

    init(pointsOnly: Bool) {
        self.pointsOnly = pointsOnly
    }

    func writeHead(into output: inout [UInt8]) {
        output.append("{\"type\":\"FeatureCollection\",\"features\":[\n")
    }

    mutating func write(_ record: ExportRecord, into output: inout [UInt8]) -> Bool {
        guard record.json["type"]?.string == "Feature" else { return false }
        if pointsOnly && record.location == nil { return false }
        if !first { output.append(",\n") }
        first = false
        output.append(contentsOf: record.line)
        return true
    }

    func writeTail(into output: inout [UInt8]) {
        output.append(first ? "]}\n" : "\n]}\n")
    }
}
