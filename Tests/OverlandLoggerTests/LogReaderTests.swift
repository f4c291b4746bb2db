import OverlandJournal
import OverlandLogger
import OverlandInput
import Testing

/// The logger's read loop over a scripted byte source and a fake clock: when a live fix is
/// complete, when it is committed, what is said when fixes stop and an input goes away.
/// Nothing here sleeps: time passes only in the waits the reader asks for.
@Suite struct LogReaderTests {
    static func epochs(_ range: Range<Int>) -> [UInt8] { bytes(GeneratedNMEA.epochs(range)) }

    /// Fixes, then a pause longer than the commit window: the last fix is committed during
    /// the pause, not at the end of the input (a `kill -9` then loses nothing).
    @Test func theLastFixBeforeAPauseIsCommittedInThePause() throws {
        let harness = try ReaderHarness(commitInterval: 5)
        var during: (appended: Int, committed: Int)?
        let input = harness.live([.bytes(Self.epochs(0..<20)), .quiet(6.5), .look {
            during = (harness.session.recordsAppended, harness.committed)
        }])
        let result = harness.reader.run(input, checkSignals: { nil })
        #expect(result.finished)
        let seen = try #require(during)
        #expect(seen.appended == 20 && seen.committed == 20, "\(seen)")
    }

    /// Once the receiver's cycle-ending sentence (VTG) is learned, an epoch's fix is emitted
    /// as that sentence arrives: no quiet interval, no next epoch needed.
    @Test func aLiveFixIsCompleteAtItsEpochsLastSentence() throws {
        // NMEA named: three epochs are less than the KiB auto detection looks at for UBX.
        let harness = try ReaderHarness(commitInterval: 0, format: .nmea)
        var during: (appended: Int, committed: Int)?
        let input = harness.live([.bytes(Self.epochs(0..<3)), .look {
            during = (harness.session.recordsAppended, harness.committed)
        }, .quiet(30)])
        _ = harness.reader.run(input, checkSignals: { nil })
        let seen = try #require(during)
        #expect(seen.appended == 3 && seen.committed == 3, "\(seen)")
    }

    /// Before the ender is learned, a lone epoch is complete when the input has been quiet
    /// for the quiet interval (1 s while the rate is unknown): not before.
    @Test func aLoneEpochIsCompleteAfterTheQuietInterval() throws {
        let harness = try ReaderHarness(commitInterval: 0)
        var looks: [Int] = []
        let input = harness.live([.bytes(Self.epochs(0..<1)), .quiet(0.9), .look { looks.append(harness.session.recordsAppended) },
                                  .quiet(0.2), .look { looks.append(harness.session.recordsAppended) }, .quiet(5)])
        _ = harness.reader.run(input, checkSignals: { nil })
        #expect(looks == [0, 1])
    }

    /// gpsd JSON: the last TPV report before a pause is committed in the pause.
    @Test func theLastGPSDReportBeforeAPauseIsCommitted() throws {
        let harness = try ReaderHarness(commitInterval: 1)
        let reports = (0..<5).map {
            "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2024-06-09T00:06:5\($0).000Z\",\"lat\":44.0688,\"lon\":-121.3141,\"alt\":1109.2}\n"
        }.joined()
        var committed: Int?
        let input = harness.live([.bytes(bytes(reports)), .quiet(3), .look { committed = harness.committed }])
        _ = harness.reader.run(input, checkSignals: { nil })
        #expect(committed == 5)
    }

    /// No fix for `noFixNotice` seconds: said once (with what was read), and once more when
    /// fixes come back.
    @Test func noFixIsSaidOnceAndFixesAgainOnce() throws {
        let harness = try ReaderHarness(commitInterval: 5)
        harness.reader.noFixNotice = 60
        var said: [String] = []
        harness.reader.onNoFix = { _, seconds, statistics in said.append("no fix \(Int(seconds.rounded())) \(statistics.sentences)") }
        harness.reader.onFixAgain = { _ in said.append("again") }
        let noFix = bytes(nmea("GPGSA,A,1,,,,,,,,,,,,,,,") + nmea("GPGSA,A,1,,,,,,,,,,,,,,,"))
        let input = harness.live([.bytes(noFix), .quiet(59), .look { said.append("59 s") }, .quiet(200),
                                  .bytes(Self.epochs(0..<3)), .quiet(2)])
        _ = harness.reader.run(input, checkSignals: { nil })
        #expect(said == ["59 s", "no fix 60 2", "again"])
    }

    /// A stop request ends a live input at once: not finished, what was read recorded.
    @Test func aStopRequestEndsTheInput() throws {
        let harness = try ReaderHarness(commitInterval: 5)
        var stop = false
        let input = harness.live([.bytes(Self.epochs(0..<5)), .look { stop = true }, .quiet(3600)])
        let start = harness.clock.now
        let result = harness.reader.run(input, checkSignals: { stop ? .stop : nil })
        #expect(!result.finished)
        #expect(harness.session.recordsAppended == 5)
        #expect(harness.clock.now - start <= harness.reader.idleInterval, "looked for at the next wake-up, no hour waited")
    }

    /// An input that ends and comes back (gpsd restarted, a port plugged in again): said
    /// lost once, reopened after growing waits, said back at its first fix; the fixes of both
    /// connections are logged.
    @Test func anInputThatComesBackIsReopenedAndSaidBackOnce() throws {
        let harness = try ReaderHarness(commitInterval: 5)
        var said: [String] = []
        harness.reader.onDisconnect = { _ in said.append("gone") }
        harness.reader.onReconnect = { _ in said.append("back") }
        var tries = 0
        let clock = harness.clock
        let input = harness.live([.bytes(Self.epochs(0..<3))], reopen: {
            tries += 1
            if tries < 4 { return nil }
            if tries > 4 { return ScriptedSource([.quiet(3600)], clock: clock) }
            return ScriptedSource([.bytes(Self.epochs(10..<13)), .quiet(2), .look { said.append("read") }], clock: clock)
        })
        var stopAfterHour = false
        let result = harness.reader.run(input, checkSignals: {
            stopAfterHour = stopAfterHour || said.last == "read"
            return stopAfterHour ? .stop : nil
        })
        #expect(!result.finished)
        #expect(said == ["gone", "back", "read"])
        #expect(harness.clock.sleeps == [0.5, 1, 2, 4])
        #expect(harness.session.recordsAppended == 6)
    }
}
