import Testing

@testable import OverlandJournal

@Suite("Journal time index")
struct JournalTimeIndexTests {
    @Test func runsStayCompactAndLookupsExact() {
        var index = JournalTimeIndex()
        for second in stride(from: Int64(1000), through: 1990, by: 10) { let inserted = index.insert(second); #expect(inserted) }
        #expect(index.runs.count == 1)
        #expect(index.contains(1000) && index.contains(1500) && index.contains(1990))
        #expect(!index.contains(1005) && !index.contains(999) && !index.contains(2000))
        let again = index.insert(1500)
        #expect(!again, "already held")
        // A second between two held ones splits the run; every old second is still held.
        let between = index.insert(1505)
        #expect(between)
        #expect(index.runs.count == 3)
        for second in stride(from: Int64(1000), through: 1990, by: 10) { #expect(index.contains(second)) }
        #expect(index.contains(1505) && !index.contains(1506))
        // Before everything.
        let first = index.insert(5)
        #expect(first)
        #expect(index.earliest == 5 && index.latest == 1990)
        #expect(index.count == 102)
    }

    @Test func randomInsertionsAgreeWithASet() {
        var generator = SystemRandomNumberGenerator()
        var index = JournalTimeIndex()
        var set = Set<Int64>()
        for _ in 0..<3000 {
            let second = Int64.random(in: 0..<2000, using: &generator) * (Bool.random() ? 1 : 3)
            let inserted = index.insert(second)
            #expect(inserted == set.insert(second).inserted)
        }
        for second in Int64(0)..<6000 { #expect(index.contains(second) == set.contains(second)) }
        // Spans stay sorted and disjoint, and the file round-trips.
        for (a, b) in zip(index.runs, index.runs.dropFirst()) { #expect(a.last < b.start) }
        #expect(JournalTimeIndex.parse(index.serialized()) == index)
    }

    @Test func damagedFilesAreRefused() {
        #expect(JournalTimeIndex.parse(Array("overland-times 1 through 5\n0 1 3\n".utf8)) != nil)
        #expect(JournalTimeIndex.parse(Array("overland-times 2 through 5\n".utf8)) == nil)
        #expect(JournalTimeIndex.parse(Array("overland-times 1 through 5\n0 0 3\n".utf8)) == nil, "step 0")
        #expect(JournalTimeIndex.parse(Array("overland-times 1 through 5\n10 1 30\n5 1 1\n".utf8)) == nil, "overlap")
        #expect(JournalTimeIndex.parse(Array("overland-times 1 through 5\n0 1 3".utf8)) == nil, "cut short")
        #expect(JournalTimeIndex.parse(Array("overland-times 1 through 5\n9223372036854775807 1 3\n1 1 1\n".utf8)) == nil)
    }
}
