import Foundation
import OverlandJournal
import Testing

/// Issue 21: `overland export --format csv` wrote an SSID or device id a spreadsheet runs as a
/// formula verbatim. Through the real command: every such field is prefixed with `'` and quoted.
@Suite("CSV export neutralises formulas")
struct SecurityCSVTests {
    @Test func formulaPrefixesFromWifiAndDeviceIDAreNeutralised() throws {
        let sandbox = try LogSandbox()
        let journal = try Journal(path: sandbox.journal, create: true, deviceID: "van")
        let appender = try JournalAppender(journal: journal)
        let hostile = [
            (#"=HYPERLINK(\"http://evil.example/\",\"click\")"#, #""'=HYPERLINK(""http://evil.example/"",""click"")""#),
            (#"+cmd|' /C calc'!A0"#, #""'+cmd|' /C calc'!A0""#),
            ("@SUM(A1:A9)", #""'@SUM(A1:A9)""#),
            ("-2+3", #""'-2+3""#),
            (#"\r=1+1"#, #""'=1+1""#),
            (#"\t=1+1"#, "\"'\t=1+1\""),
            (#" \"=1+1"#, #""' ""=1+1""#),
        ]
        for (index, (value, _)) in hostile.enumerated() {
            let line = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-70.6,-33.4]},"properties":{"timestamp":"2026-11-21T05:17:1\#(index)Z","altitude":30,"speed":1.5,"course":3,"horizontal_accuracy":5,"vertical_accuracy":3,"speed_accuracy":-1,"course_accuracy":-1,"motion":["driving"],"battery_state":"unplugged","battery_level":0.8,"wifi":"\#(value)","device_id":"\#(value)"}}"#
            try appender.append(Array(line.utf8))
        }
        try appender.commit()
        let result = try sandbox.overland.run(["export", "--journal", sandbox.journal, "--format", "csv"])
        result.expectExit(0)
        let rows = result.stdoutText.components(separatedBy: "\r\n")
        try #require(rows.count == hostile.count + 2, "\(rows)")
        for (index, (_, field)) in hostile.enumerated() {
            // Latitude and longitude stay numbers; wifi and device_id are neutralised.
            let row = rows[index + 1]
            #expect(row.hasPrefix("2026-11-21T05:17:1\(index)Z,-33.4,-70.6,"), "\(row)")
            #expect(row.hasSuffix(",unplugged,0.8," + field + "," + field + ","), "\(row)")
        }
    }
}
