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
        if let altitude = point.knownAltitude { output.append(String(altitude)) }
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

    /// One text field: control characters and bidirectional overrides dropped
    /// (`PrintableText`: a journal from a stick must not reach a terminal through `cat`) but
    /// for tab and line feed; a value a spreadsheet would run as a formula neutralised
    /// (`startsFormula`: prefixed with `'`); then quoted when it holds a comma, a quote or a
    /// line break or was neutralised, quotes doubled (RFC 4180: a line break inside quotes is
    /// data, not a row). The numeric columns are written from numbers and stay numbers.
    static func appendField(_ raw: String, to output: inout [UInt8]) {
        let text = PrintableText.sanitised(raw, replacement: "")
        let neutralised = startsFormula(text)
        let needsQuotes = neutralised || text.utf8.contains {
            $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D
        }
        guard needsQuotes else {
            output.append(text)
            return
        }
        output.append(UInt8(ascii: "\""))
        if neutralised { output.append(UInt8(ascii: "'")) }
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\"") { output.append(UInt8(ascii: "\"")) }
            output.append(byte)
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Whether a spreadsheet (Excel, LibreOffice, Google Sheets) would read the text as a
    /// formula (OWASP, CSV injection): it starts with `=`, `+`, `-`, `@`, a tab or a carriage
    /// return, or with one of `= + - @` after leading blanks, line breaks or quotes (`"` and
    /// `'`), which spreadsheets skip or strip on import.
    static func startsFormula(_ text: String) -> Bool {
        let triggers: Set<UInt8> = [UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@")]
        let skipped: Set<UInt8> = [UInt8(ascii: " "), 0x09, 0x0A, 0x0D, UInt8(ascii: "\""), UInt8(ascii: "'")]
        guard let first = text.utf8.first else { return false }
        if first == 0x09 || first == 0x0D { return true }
        guard let lead = text.utf8.first(where: { !skipped.contains($0) }) else { return false }
        return triggers.contains(lead)
    }
}
