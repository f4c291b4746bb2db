import Foundation
import OverlandJournal
import Testing

/// The time index (journal-format.md section 15) through `overland-log` as a user runs it:
/// keyed by device, never trusted beyond the journal's records, forgetting what repair
/// set aside, and read in bounded memory (issue 21).
@Suite("Time index trust")
struct LogTimeIndexTrustTests {
    private static func stats(_ result: ToolResult) -> String { result.stderrText }

    /// Another device's capture with the same seconds is logged whole.
    @Test func anotherDevicesCaptureWithTheSameSecondsIsLogged() throws {
        let sandbox = try LogSandbox()
        let capture = try sandbox.file("a.nmea", text: GeneratedNMEA.epochs(0..<100))
        #expect(try sandbox.log(["--device-id", "van", capture]).succeeded)
        let bike = try sandbox.log(["--device-id", "bike", "--stats", capture])
        #expect(bike.succeeded, "\(bike)")
        #expect(sandbox.recordCount() == 200, "\(bike.stderrText)")
        #expect(!bike.stderrText.contains("already in the journal"), "\(bike.stderrText)")
        // Each device's seconds are its own: both captures again add nothing.
        let again = try sandbox.log(["--device-id", "bike", "--stats", capture])
        #expect(again.stderrText.contains("100 already in the journal"), "\(again.stderrText)")
        let van = try sandbox.log(["--device-id", "van", "--stats", capture])
        #expect(van.stderrText.contains("100 already in the journal"), "\(van.stderrText)")
        #expect(sandbox.recordCount() == 200)
        let index = try String(contentsOfFile: sandbox.journal + "/state/times", encoding: .utf8)
        #expect(index.hasPrefix("overland-times 2 through 200\ndevice \"bike\"\n"), "\(index)")
    }

    /// A hand-edited or hostile `state/times` never makes a real fix vanish: outside the
    /// grammar, or claiming seconds outside the journal's own, it is rebuilt (one line).
    @Test(arguments: [
        "overland-times 1 through 100\n0 1 4000000000\n",
        "overland-times 1 through 100\n-5 1 30\n+30 1 1\n",
        "overland-times 1 through 100\n0030 1 1\n",
        "overland-times 2 through 100\ndevice \"van\"\n0 1 4000000000\n",
        "overland-times 2 through 100\ndevice \"van\"\n-5 1 30\n",
        "overland-times 2 through 100\ndevice \"van\"\n+30 1 1\n",
        "overland-times 2 through 100\ndevice \"van\"\n0030 1 1\n",
        // In the grammar, but the new capture's seconds, which the journal never held.
        "overland-times 2 through 100\ndevice \"van\"\n\(GeneratedNMEA.time(100)) 1 50\n",
        "overland-times 2 through 100\ndevice \"van\"\n\(GeneratedNMEA.time(0)) 1 50\n\(GeneratedNMEA.time(100) - GeneratedNMEA.time(0)) 1 50\n",
    ])
    func hostileIndexFilesAreRebuilt(index: String) throws {
        let sandbox = try LogSandbox()
        let first = try sandbox.file("a.nmea", text: GeneratedNMEA.epochs(0..<100))
        #expect(try sandbox.log(["--device-id", "van", first]).succeeded)
        try index.write(toFile: sandbox.journal + "/state/times", atomically: false, encoding: .utf8)
        let next = try sandbox.file("b.nmea", text: GeneratedNMEA.epochs(100..<150))
        let result = try sandbox.log(["--device-id", "van", "--stats", next])
        #expect(result.succeeded, "\(result)")
        #expect(sandbox.recordCount() == 150, "\(result.stderrText)")
        let told = result.stderrLines.filter { $0.contains("state/times") }
        #expect(told.count == 1 && told.first?.contains("rebuilt from the journal's records") == true, "\(result.stderrText)")
        // The rebuilt index is right: both captures again add nothing.
        let again = try sandbox.log(["--device-id", "van", "--stats", first, next])
        #expect(again.stderrText.contains("150 already in the journal"), "\(again.stderrText)")
        #expect(!again.stderrText.contains("state/times"), "\(again.stderrText)")
    }

    /// After `journal repair` sets a damaged segment aside, importing its capture again
    /// restores its points (the journal goes on past them: a later capture in a newer
    /// segment, so the index still covers the journal's end).
    @Test func repairForgetsTheSecondsSetAside() throws {
        let sandbox = try LogSandbox()
        let capture = try sandbox.file("a.nmea", text: GeneratedNMEA.epochs(0..<30))
        #expect(try sandbox.log(["--device-id", "van", capture]).succeeded)
        #expect(try sandbox.overlandJournal("journal", "seal").succeeded)
        let later = try sandbox.file("b.nmea", text: GeneratedNMEA.epochs(100..<110))
        #expect(try sandbox.log(["--device-id", "van", later]).succeeded)
        let segment = try #require(try sandbox.segments().first)
        #expect(try sandbox.segments().count == 2)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: segment)))
        let size = Int(bytes[20]) | Int(bytes[21]) << 8 | Int(bytes[22]) << 16 | Int(bytes[23]) << 24
        try #require(size > 62 && size < bytes.count)
        bytes[54 + (size - 62) / 2] ^= 0x10
        try Data(bytes).write(to: URL(fileURLWithPath: segment))
        let repair = try sandbox.overlandJournal("journal", "repair")
        #expect(repair.succeeded, "\(repair)")
        #expect(sandbox.recordCount() == 10)
        let again = try sandbox.log(["--device-id", "van", "--stats", capture, later])
        #expect(again.succeeded, "\(again)")
        #expect(sandbox.recordCount() == 40, "\(again.stderrText)")
        #expect(again.stderrText.contains("10 already in the journal"), "\(again.stderrText)")
    }

    /// A valid index of 300,000 irregular runs (or more, scaled): the logger's peak memory does not grow
    /// with it (it was loaded whole: 444 MB for 5 M runs).
    @Test func aLargeIndexCostsBoundedMemory() throws {
        let sandbox = try LogSandbox()
        // scripts/soak's OVERLAND_SOAK_SCALE measures larger indexes (17: 5.1 M runs, the issue's 30 MB).
        let scale = ProcessInfo.processInfo.environment["OVERLAND_SOAK_SCALE"].flatMap(Int.init).map { max($0, 1) } ?? 1
        let runs = 300_000 * scale
        // A journal of that many points at irregular seconds (no two steps alike in a
        // row), appended directly: the file such a journal's index is.
        var seconds: [Int64] = []
        var second = GeneratedNMEA.time(0)
        for number in 0..<runs { seconds.append(second); second += 2 + Int64(number % 2) + Int64((number / 2) % 3) }
        do {
            let journal = try Journal(path: sandbox.journal, create: true)
            let appender = try JournalAppender(journal: journal)
            for time in seconds {
                let stamp = LogTime.format(time)
                try appender.append(Array(#"{"type":"Feature","geometry":{"type":"Point","coordinates":[-77.7,45.5]},"properties":{"timestamp":"\#(stamp)","device_id":"van"}}"#.utf8))
            }
            try appender.commit()
        }
        var index = "overland-times 2 through \(runs)\ndevice \"van\"\n"
        var previous: Int64 = 0
        for time in seconds {
            index += "\(time - previous) 1 1\n"
            previous = time
        }
        try FileManager.default.createDirectory(atPath: sandbox.journal + "/state", withIntermediateDirectories: true)
        try index.write(toFile: sandbox.journal + "/state/times", atomically: false, encoding: .utf8)
        // Epoch 0 is in the journal; epochs 1 and 2 fall between its points.
        let probe = try sandbox.file("b.nmea", text: GeneratedNMEA.epochs(0..<2))
        let (_, floor) = try HostileMeasure.peakRSS(sandbox.logger, ["--help"])
        let (result, peak) = try HostileMeasure.peakRSS(sandbox.logger, ["--journal", sandbox.journal, "--device-id", "van", "--stats", probe])
        #expect(result.succeeded, "\(result)")
        #expect(result.stderrText.contains("1 already in the journal"), "\(result.stderrText)")
        #expect(!result.stderrText.contains("state/times"), "a valid index is not rebuilt: \(result.stderrText)")
        #expect(sandbox.recordCount() == UInt64(runs) + 1)
        #expect(peak > 0 && peak < floor + (8 << 20), "peak RSS \(peak >> 20) MiB, floor \(floor >> 20) MiB")
        print("time index of \(runs) runs (\(index.utf8.count) bytes): logger peak RSS \(peak >> 20) MiB, floor \(floor >> 20) MiB")
    }
}
