@testable import OverlandSimulation
import Testing

/// The seeds the 60-minute power-cut soak (`scripts/soak --sim --release --minutes 60`)
/// found failing on main (issue 26), replayed: each held every invariant after its fix.
@Suite struct SoakSeedTests {
    /// Issue 26, seed 709558469 (the soak): as seed 64, but the second stop was cut too,
    /// after its commit: the second copy stayed without the stop returning, and the check
    /// "sendable from both" took it for the moved first copy. A stop that may write a record
    /// again is now counted before it runs, so every check allows the duplicate alike.
    @Test func tripWrittenAgainByAStopThatWasCut() async {
        let outcome = await Explorer().run(seed: 709_558_469)
        #expect(outcome.violation == nil, "\(outcome.violation.map { "\($0)" } ?? "")")
    }

    /// Issue 26, seed 709559427 (the soak): a move cut after it deleted a source segment
    /// whose records the floor had not durably passed (a reader ahead only in its progress
    /// record); the next move could not open the segment. Fixed in `passCursors`.
    @Test func moveResumedAfterACutWithAReaderAheadInItsProgressRecord() async {
        let outcome = await Explorer().run(seed: 709_559_427)
        #expect(outcome.violation == nil, "\(outcome.violation.map { "\($0)" } ?? "")")
    }
}
