import OverlandJSON

/// CSV (RFC 4180: CRLF line ends, fields with a comma, quote or line break quoted, quotes
/// doubled) with a header line; one row per location. Unknown values (the protocol's -1)
/// are empty fields.
struct CSVFormatter: RecordFormatter {
    static let columns = [
        "timestamp", "latitude", "longitude", "altitude", "speed", "course", "horizontal_accuracy",
        "vertical_accuracy", "motion", "battery_state", "battery_level", "wifi", "device_id", "trip_id",
    ]

    func writeHead(into output: inout [UInt8]) {
        output.append(Self.columns.joined(separator: ","))
        output.append("\r\n")
    }

    func write(_ record: ExportRecord, into output: inout [UInt8]) -> Bool {
        guard let point = record.location else { return false }
        ISO8601UTC.append(point.timestamp, to: &output)
        output.append(",")
        output.appendDecimal(point.latitude, maxFractionDigits: 7)
        output.append(",")
        output.appendDecimal(point.longitude, maxFractionDigits: 7)
        output.append(",")
        if !(point.altitude == 0 && point.verticalAccuracy < 0) { output.append(String(point.altitude)) }
        output.append(",")
        if point.speed >= 0 { output.appendDecimal(point.speed, maxFractionDigits: 2) }
        output.append(",")
        if point.course >= 0 { output.append(String(point.course)) }
        output.append(",")
        if point.horizontalAccuracy >= 0 { output.append(String(point.horizontalAccuracy)) }
        output.append(",")
        if point.verticalAccuracy >= 0 { output.append(String(point.verticalAccuracy)) }
        output.append(",")
        Self.appendField(point.motion.map(\.rawValue).joined(separator: " "), to: &output)
        output.append(",")
        Self.appendField(point.batteryState.rawValue, to: &output)
        output.append(",")
        if point.batteryLevel > 0 { output.appendDecimal(point.batteryLevel, maxFractionDigits: 2) }
        output.append(",")
        Self.appendField(point.wifi, to: &output)
        output.append(",")
        Self.appendField(point.deviceID, to: &output)
        output.append(",")
        Self.appendField(point.tripID ?? "", to: &output)
        output.append("\r\n")
        return true
    }

    func writeTail(into output: inout [UInt8]) {}

    /// One field: control characters and bidirectional overrides dropped (`PrintableText`:
    /// a journal from a stick must not reach a terminal through `cat`) but for tab and line
    /// feed, then quoted when it holds a comma, a quote or a line break, quotes doubled
    /// (RFC 4180: a line break inside quotes is data, not a row).
    static func appendField(_ raw: String, to output: inout [UInt8]) {
        let text = PrintableText.sanitised(raw, replacement: "")
        let needsQuotes = text.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
        guard needsQuotes else {
            output.append(text)
            return
        }
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\"") { output.append(UInt8(ascii: "\"")) }
            output.append(byte)
        }
        output.append(UInt8(ascii: "\""))
    }
}
