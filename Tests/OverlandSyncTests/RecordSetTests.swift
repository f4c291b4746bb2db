import OverlandJournal
import Testing

@testable import OverlandSync

/// `RecordSet`: a destination's refused records as ranges (`SyncState.refused`), which
/// `overland status` counts and an audit rewrites.
@Suite struct RecordSetTests {
    @Test func insertsMergeNeighboursAndRemovesSplitRanges() {
        var set = RecordSet()
        for sequence: UInt64 in [5, 3, 4, 10, 11, 20] { set.insert(sequence) }
        #expect(set.ranges == [3..<6, 10..<12, 20..<21])
        set.insert(6..<10)
        #expect(set.ranges == [3..<12, 20..<21])
        set.remove(4..<8)
        #expect(set.ranges == [3..<4, 8..<12, 20..<21])
        #expect(set.count() == 6)
        #expect(set.count(from: 9) == 4, "records retention deleted are not counted")
        set.remove(0..<100)
        #expect(set.isEmpty)
    }

    @Test func staysWithinItsLimitCountingTheGapsItJoined() {
        var set = RecordSet(limit: 4)
        for sequence: UInt64 in [0, 10, 12, 30, 50, 51] { set.insert(sequence * 2) }
        #expect(set.ranges.count == 4)
        #expect(set.ranges.first == 0..<1 && set.ranges.last == 100..<103, "the nearest ranges joined: \(set.ranges)")
        #expect(set.count() >= 6, "an upper bound, never fewer than were inserted")
    }

    @Test func aStateFileKeepsTheRefusedRangesAndDropsNonsense() throws {
        var state = SyncState()
        state.refused.insert(7..<9)
        state.refused.insert(40)
        let read = try #require(SyncState(parsing: state.encoded))
        #expect(read.refused == state.refused)
        let hostile = try #require(SyncState(parsing: Array(#"{"refused":[[9,3],[-1,4],[2,"x"],[1e19,1e19],[5,6],[1,2]]}"#.utf8)))
        #expect(hostile.refused.ranges == [1..<2, 5..<6])
    }
}
