import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `overland map` as the other commands: an empty range is one line and 66, an existing
/// file is kept without --force, a damaged journal is drawn from what is readable.
@Suite struct MapCommandTests {
    @Test func anEmptyRangeIsOneLineAndNoInput() throws {
        let sandbox = try MapSandbox()
        try sandbox.write(MapBrowserTests.lShape())
        let output = sandbox.directory.appending("map.html")
        let map = try sandbox.map(["--output", output, "--since", "2030-01-01"])
        map.expectExit(66)
        #expect(map.stderrLines == ["overland map: no points to draw in '\(sandbox.journal)' between 2030-01-01 and its end (300 records read)"],
                "\(map.stderrText)")
        #expect(access(output, F_OK) != 0)
    }

    @Test func anExistingFileIsKeptWithoutForce() throws {
        let sandbox = try MapSandbox()
        try sandbox.write(MapBrowserTests.lShape())
        let output = sandbox.directory.appending("map.svg")
        try "mine".write(toFile: output, atomically: false, encoding: .utf8)
        let refused = try sandbox.map(["--output", output])
        refused.expectExit(73)
        #expect(refused.stderrLines == ["overland map: '\(output)' exists: --force replaces it"], "\(refused.stderrText)")
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "mine")
        let forced = try sandbox.map(["--output", output, "--force"])
        #expect(forced.succeeded, "\(forced)")
        let text = try String(contentsOfFile: output, encoding: .utf8)
        #expect(text.hasPrefix("<?xml") && text.contains("<svg"))
        var info = stat()
        #expect(stat(output, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    @Test func aDamagedJournalIsDrawnFromWhatIsReadable() throws {
        let sandbox = try MapSandbox()
        try sandbox.write(MapBrowserTests.lShape(), sealEvery: 100)
        let segments = try FileManager.default.contentsOfDirectory(atPath: sandbox.journal + "/segments").sorted()
        let first = sandbox.journal + "/segments/" + (try #require(segments.first))
        var bytes = try #require(FileManager.default.contents(atPath: first))
        for index in bytes.count / 2..<bytes.count / 2 + 16 { bytes[index] ^= 0x5A }
        try bytes.write(to: URL(fileURLWithPath: first))
        let output = sandbox.directory.appending("map.html")
        let map = try sandbox.map(["--output", output])
        #expect(map.succeeded, "\(map)")
        #expect(map.stderrText.contains("damaged stretch"), "\(map.stderrText)")
        let page = try String(contentsOfFile: output, encoding: .utf8)
        #expect(page.contains("of the journal skipped"))
        #expect(page.contains("Content-Security-Policy\" content=\"default-src 'none';"))
    }

    @Test func oneTripIsChosenByTripOption() throws {
        let sandbox = try MapSandbox()
        try sandbox.write(MapBrowserTests.lShape().enumerated().map { index, point in
            var point = point
            point.trip = index < 100 ? "t-one" : index < 200 ? nil : "t-two"
            return point
        })
        let last = try sandbox.map(["--output", sandbox.directory.appending("last.html"), "--trip", "last"])
        #expect(last.succeeded, "\(last)")
        #expect(last.stderrText.contains("100 points (") && last.stderrText.contains("1 track,"), "\(last.stderrText)")
        #expect(try String(contentsOfFile: sandbox.directory.appending("last.html"), encoding: .utf8).contains("trip t-two"))
        let all = try sandbox.map(["--output", sandbox.directory.appending("all.html")])
        #expect(all.stderrText.contains("300 points (") && all.stderrText.contains("3 tracks,"), "\(all.stderrText)")
        let missing = try sandbox.map(["--output", sandbox.directory.appending("none.html"), "--trip", "3"])
        missing.expectExit(66)
        #expect(missing.stderrLines == ["overland map: no trip 3 among the points selected (2 trips): --trip takes last or 1 to 2"], "\(missing.stderrText)")
    }

    @Test func badOptionsAreUsageErrors() throws {
        let sandbox = try MapSandbox()
        for arguments in [["--output", "map.png"], ["--color", "rainbow"], ["--tiles", "ftp://x/{z}/{x}/{y}"], ["--tiles", "https://{s}.tile.org/{z}/{x}/{y}.png"]] {
            let map = try sandbox.map(arguments)
            #expect(map.exitStatus == 64, "\(arguments): \(map)")
        }
    }
}
