import OverlandSettings
import Testing

/// One syntax for every interval: seconds as a number, or a number with s, m or h.
@Suite("Intervals")
struct IntervalTests {
    @Test(arguments: [
        ("5", 5.0), ("0", 0), ("0.5", 0.5), ("5s", 5), ("5S", 5), ("1m", 60), ("1.5m", 90), ("1h", 3600),
        ("1.5h", 5400), ("3600", 3600), ("0.2s", 0.2),
    ])
    func intervalsAreRead(text: String, seconds: Double) {
        #expect(Interval.seconds(text) == seconds, "\(text)")
    }

    @Test(arguments: ["", "s", "m", "-5", "+5", "5x", "5ms", "1e3", "5 s", " 5", ".5", "5.", "1.2.3", "inf", "nan", "0x10", "5d", "٥"])
    func notIntervals(text: String) {
        #expect(Interval.seconds(text) == nil, "\(text)")
    }

    /// The settings file: commit_interval takes 5 and "5s" alike; min_time and send_interval
    /// take their protocol spelling or any interval of the same length.
    @Test func settingsTakeEverySpelling() throws {
        for (text, expected) in [(#"{"commit_interval": 5}"#, 5.0), (#"{"commit_interval": "5s"}"#, 5), (#"{"commit_interval": "5"}"#, 5),
                                 (#"{"commit_interval": "0.5s"}"#, 0.5), (#"{"commit_interval": "1m"}"#, 60), (#"{"commit_interval": "1h"}"#, 3600)] {
            #expect(try SettingsFile.decode(Array(text.utf8), path: "s.json").commitInterval == expected, "\(text)")
        }
        for (value, expected) in [(#""5s""#, MinTime.fiveSeconds), ("5", .fiveSeconds), (#""5""#, .fiveSeconds), ("60", .oneMinute),
                                  (#""60s""#, .oneMinute), (#""1M""#, .oneMinute), (#""300""#, .fiveMinutes), (#""0.5m""#, .thirtySeconds)] {
            let settings = try SettingsFile.decode(Array(#"{"main": {"min_time": \#(value)}, "trip": {"min_time": \#(value)}}"#.utf8), path: "s.json")
            #expect(settings.main.profile.minTime == expected, "\(value)")
            #expect(settings.trip.profile.minTime == expected, "\(value)")
        }
        for (value, expected) in [(#""1m""#, SendInterval.oneMinute), ("300", .fiveMinutes), (#""30""#, .thirtySeconds), (#""off""#, .off)] {
            #expect(try SettingsFile.decode(Array(#"{"send_interval": \#(value)}"#.utf8), path: "s.json").sendInterval == expected, "\(value)")
        }
    }

    /// Written back, a choice keeps the protocol's spelling, so a server and the app read it.
    @Test func choicesAreWrittenInTheProtocolsSpelling() throws {
        let settings = try SettingsFile.decode(Array(#"{"main": {"min_time": 60}, "send_interval": "120s", "commit_interval": "2s"}"#.utf8), path: "s.json")
        let text = String(decoding: SettingsFile.encode(settings), as: UTF8.self)
        #expect(text.contains(#""min_time": "1m""#), "\(text)")
        #expect(text.contains(#""send_interval": "2m""#), "\(text)")
        #expect(text.contains(#""commit_interval": 2,"#), "\(text)")
    }
}
