import Foundation
import OverlandExport
import OverlandJSON
import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

struct ExportTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A stored location line as the logger writes it.
func locationLine(_ index: Int, time: Int64, latitude: Double? = nil, longitude: Double? = nil, speed: Double = 1.5,
                  course: Int = 90, altitude: Int = 40, verticalAccuracy: Int = 4, wifi: String = "", device: String = "van",
                  trip: String? = nil) -> String {
    let lat = latitude ?? (52.5 + Double(index) * 0.0001)
    let lon = longitude ?? (13.4 + Double(index) * 0.0001)
    var line = #"{"type":"Feature","geometry":{"type":"Point","coordinates":["#
    line += "\(lon),\(lat)]},\"properties\":{\"timestamp\":\"\(ISO8601UTC.string(from: time))\""
    line += ",\"altitude\":\(altitude),\"speed\":\(speed),\"course\":\(course),\"horizontal_accuracy\":5"
    line += ",\"vertical_accuracy\":\(verticalAccuracy),\"speed_accuracy\":-1,\"course_accuracy\":-1,\"motion\":[\"driving\"]"
    line += ",\"battery_state\":\"charging\",\"battery_level\":0.5,\"wifi\":\(quoted(wifi)),\"device_id\":\(quoted(device))"
    if let trip { line += ",\"trip_id\":\(quoted(trip))" }
    return line + "}}"
}

func actionLine(time: Int64) -> String {
    #"{"type":"Feature","geometry":null,"properties":{"action":"paused_location_updates","timestamp":""#
        + ISO8601UTC.string(from: time) + #"","device_id":"van"}}"#
}

func tripLine(start: Int64, end: Int64) -> String {
    #"{"type":"Feature","geometry":{"type":"Point","coordinates":[13.4,52.5]},"properties":{"type":"trip","mode":"car","start":""#
        + ISO8601UTC.string(from: start) + #"","end":""# + ISO8601UTC.string(from: end) + #"","distance":100}}"#
}

func quoted(_ text: String) -> String {
    var writer = JSONWriter()
    writer.appendString(text)
    return String(decoding: writer.bytes, as: UTF8.self)
}

/// A journal holding `lines`, committed `perCommit` at a time, sealed every `perSegment`.
func makeJournal(at path: String, lines: [String], perCommit: Int = 10, perSegment: Int = 50, sealLast: Bool = true,
                 deviceID: String = "van") throws -> Journal {
    let journal = try Journal(path: path, create: true, deviceID: deviceID)
    let appender = try JournalAppender(journal: journal)
    for (index, line) in lines.enumerated() {
        try appender.append(Array(line.utf8))
        if (index + 1) % perCommit == 0 { try appender.commit() }
        if (index + 1) % perSegment == 0 { try appender.sealActive() }
    }
    try appender.commit()
    if sealLast { try appender.sealActive() }
    return journal
}

/// Exports to memory; also counts the chunks handed out.
func exportText(_ journal: Journal, _ options: ExportOptions) throws -> (text: String, summary: ExportSummary, chunks: Int) {
    var bytes: [UInt8] = []
    var chunks = 0
    let summary = try Exporter.export(journal, options: options) { chunk in
        chunks += 1
        bytes += chunk
    }
    return (String(decoding: bytes, as: UTF8.self), summary, chunks)
}
