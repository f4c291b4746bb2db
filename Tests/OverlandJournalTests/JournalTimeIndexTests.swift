import TestSupport
import Foundation
import Testing

@testable import OverlandJournal

/// Test records: `{"t":SECOND,"d":"DEVICE"}`; the key reads them as the logger's reads a Feature.
private func testKey(_ line: ArraySlice<UInt8>) -> (second: Int64, device: ArraySlice<UInt8>)? {
    let text = String(decoding: line, as: UTF8.self)
    guard text.hasPrefix("{\"t\":"), let comma = text.firstIndex(of: ","),
          let second = Int64(text[text.index(text.startIndex, offsetBy: 5)..<comma]) else { return nil }
    let quote = Array(line).firstIndex(of: UInt8(ascii: "d"))! + 4
    let end = line.endIndex - 2
    return (second, line[(line.startIndex + quote)..<end])
}

private func point(_ second: Int64, _ device: String) -> String { "{\"t\":\(second),\"d\":\"\(device)\"}" }

private func key(_ device: String) -> [UInt8] { Array(device.utf8) }

@Suite("Journal time index")
struct JournalTimeIndexTests {
    @Test func runsStayCompactAndLookupsExact() {
        var runs = TimeRuns()
        for second in stride(from: Int64(1000), through: 1990, by: 10) { let inserted = runs.insert(second); #expect(inserted) }
        #expect(runs.runs.count == 1)
        #expect(runs.contains(1000) && runs.contains(1500) && runs.contains(1990))
        #expect(!runs.contains(1005) && !runs.contains(999) && !runs.contains(2000))
        let again = runs.insert(1500)
        #expect(!again, "already held")
        let between = runs.insert(1505)
        #expect(between)
        #expect(runs.runs.count == 3)
        for second in stride(from: Int64(1000), through: 1990, by: 10) { #expect(runs.contains(second)) }
        #expect(runs.contains(1505) && !runs.contains(1506))
        #expect(runs.seconds == 101)
    }

    @Test func randomInsertionsAgreeWithASet() {
        var runs = TimeRuns()
        var set = Set<Int64>()
        for _ in 0..<3000 {
            let second = Int64.random(in: 0..<2000) * (Bool.random() ? 1 : 3)
            #expect(runs.insert(second) == set.insert(second).inserted)
        }
        for second in Int64(0)..<6000 { #expect(runs.contains(second) == set.contains(second)) }
        for (a, b) in zip(runs.runs, runs.runs.dropFirst()) { #expect(a.last < b.start) }
    }

    /// The merge of a file's runs with runs held in memory is their union, sorted and
    /// disjoint, for runs of every step interleaving every way.
    @Test func mergesAreUnions() throws {
        for round in 0..<40 {
            var first = TimeRuns(), second = TimeRuns()
            var set = Set<Int64>()
            for _ in 0..<(round * 20 + 5) {
                let value = Int64.random(in: 0..<3000) * Int64.random(in: 1...4)
                set.insert(value)
                if Bool.random() { first.insert(value) } else { second.insert(value) }
            }
            var merged: [TimeRun] = []
            var a = 0, b = 0
            try TimeRunJoiner.merge({ defer { a += 1 }; return a < first.runs.count ? first.runs[a] : nil },
                                    { defer { b += 1 }; return b < second.runs.count ? second.runs[b] : nil },
                                    emit: { merged.append($0) })
            for (x, y) in zip(merged, merged.dropFirst()) { #expect(x.last < y.start) }
            #expect(merged.reduce(0) { $0 + $1.count } == Int64(set.count))
            let result = TimeRuns(runs: merged)
            for value in set { #expect(result.contains(value)) }
        }
    }

    private func open(_ text: String) throws -> Result<TimeIndexFile, TimeIndexFile.Invalid>? {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/times"
        try Array(text.utf8).withUnsafeBytes { bytes in
            let fd = Glibc.open(path, O_WRONLY | O_CREAT, 0o600)
            _ = write(fd, bytes.baseAddress, bytes.count)
            close(fd)
        }
        return try TimeIndexFile.open(path, in: POSIXFileSystem())
    }

    private func reason(_ text: String) throws -> String? {
        guard case .failure(let invalid)? = try open(text) else { return nil }
        return invalid.reason
    }

    /// The grammar exactly: plain decimal without sign or leading zero, sorted and disjoint
    /// runs, no more seconds than the records covered, canonical device keys in order.
    @Test func filesOutsideTheGrammarAreRefused() throws {
        let good = "overland-times 2 through 100\ndevice \"bike\"\n5 1 3\ndevice \"van\"\n0 1 30\n40 2 5\n"
        guard case .success(let file)? = try open(good) else { Issue.record("a good file refused"); return }
        let van = try #require(file.section(of: key("van")))
        #expect(try file.contains(section: van, 0) && file.contains(section: van, 29) && file.contains(section: van, 48))
        #expect(try !file.contains(section: van, 30) && !file.contains(section: van, 41))
        #expect(file.section(of: key("car")) == nil)
        let refused = [
            "overland-times 1 through 100\n0 1 3\n",                          // version 1
            "overland-times 2 through 100\ndevice \"van\"\n0 1 4000000000\n",  // more seconds than records
            "overland-times 2 through 100\ndevice \"van\"\n-5 1 30\n",
            "overland-times 2 through 100\ndevice \"van\"\n+30 1 1\n",
            "overland-times 2 through 100\ndevice \"van\"\n0030 1 1\n",
            "overland-times 2 through 100\ndevice \"van\"\n30 01 1\n",
            "overland-times 2 through 100\ndevice \"van\"\n30 0 1\n",
            "overland-times 2 through 100\ndevice \"van\"\n30 1 0\n",
            "overland-times 2 through 100\ndevice \"van\"\n30  1 1\n",
            "overland-times 2 through 100\ndevice \"van\"\n30 1 1 \n",
            "overland-times 2 through 100\ndevice \"van\"\n30 1 1",            // cut short
            "overland-times 2 through 100\ndevice \"van\"\n10 1 30\n5 1 1\n",  // overlap
            "overland-times 2 through 100\ndevice \"van\"\n253402300799 2 2\n", // past year 9999
            "overland-times 2 through 100\n0 1 3\n",                           // no device
            "overland-times 2 through 100\ndevice \"van\"\ndevice \"vbn\"\n0 1 3\n", // a device without seconds
            "overland-times 2 through 100\ndevice \"van\"\n0 1 3\ndevice \"bike\"\n0 1 3\n", // out of order
            "overland-times 2 through 100\ndevice \"\\u0076an\"\n0 1 3\n",     // not as the writers escape it
            "overland-times 2 through 100\ndevice \"v\"an\"\n0 1 3\n",
            "overland-times 2 through 9007199254740993\ndevice \"van\"\n0 1 3\n",
            "overland-times 2 through 0100\ndevice \"van\"\n0 1 3\n",
        ]
        for text in refused {
            #expect(try reason(text) != nil, "accepted: \(text.debugDescription)")
        }
    }

    /// Another device's seconds are not this device's: a capture of a second device with
    /// the same times is logged (issue 21).
    @Test func keyedByDevice() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        try commit((100..<200).map { point(Int64($0), "van") }, to: appender)
        let index = try journal.timeIndex(key: testKey)
        #expect(index.contains(device: key("van"), second: 150))
        #expect(!index.contains(device: key("bike"), second: 150))
        #expect(index.insert(device: key("bike"), second: 150))
        try commit([point(150, "bike")], to: appender)
        try index.save(through: try journal.endSequence())
        let again = try journal.timeIndex(key: testKey)
        #expect(again.rebuilt == nil)
        #expect(again.contains(device: key("bike"), second: 150) && !again.contains(device: key("bike"), second: 151))
    }

    /// A file in the grammar whose seconds reach outside the span of the device's points is
    /// rebuilt the first time it would drop a fix; so is one covering past the end.
    @Test func aFileThatDisagreesWithTheRecordsIsRebuilt() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        try commit((100..<200).map { point(Int64($0), "van") }, to: appender)
        let path = journal.statePath(of: JournalTimeIndex.stateName)
        try FileManager.default.createDirectory(atPath: journal.statePath, withIntermediateDirectories: true)
        try "overland-times 2 through 100\ndevice \"van\"\n100 1 100\n1000 1 0\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(try journal.timeIndex(key: testKey).rebuilt != nil, "count 0")
        try "overland-times 2 through 100\ndevice \"van\"\n1000 1 50\n".write(toFile: path, atomically: false, encoding: .utf8)
        let index = try journal.timeIndex(key: testKey)
        #expect(index.rebuilt == nil, "in the grammar: trusted until it would drop a fix")
        #expect(!index.contains(device: key("van"), second: 1010), "outside the van's span in the journal")
        #expect(index.rebuilt != nil)
        #expect(index.contains(device: key("van"), second: 150))
        try "overland-times 2 through 100000\ndevice \"van\"\n100 1 100\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(try journal.timeIndex(key: testKey).rebuilt?.contains("past the journal's end") == true)
    }

    /// Every second must be a record's: a point of its device within the span of its
    /// points (one second per point), or one of the records no longer in the journal.
    @Test func eachSecondIsAccountedForByARecord() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        try commit((100..<198).map { point(Int64($0), "bike") } + [point(100, "vm"), point(5100, "vm")], to: appender)
        try appender.sealActive()
        let path = journal.statePath(of: JournalTimeIndex.stateName)
        try FileManager.default.createDirectory(atPath: journal.statePath, withIntermediateDirectories: true)
        // Within vm's span, but 100 seconds for its 2 points.
        try "overland-times 2 through 100\ndevice \"vm\"\n100 1 100\n".write(toFile: path, atomically: false, encoding: .utf8)
        let forged = try journal.timeIndex(key: testKey)
        #expect(!forged.contains(device: key("vm"), second: 150))
        #expect(forged.rebuilt?.contains("100 seconds of device \"vm\"") == true, "\(forged.rebuilt ?? "trusted")")
        #expect(forged.contains(device: key("vm"), second: 5100))
        try forged.save(through: try journal.endSequence())
        // Every segment passed and removed (a move, retention): the seconds stay, as many as the records gone.
        _ = try commit([point(9000, "bike")], to: appender)
        try appender.sealActive()
        try journal.advanceCursor(to: 100)
        #expect(try journal.removeSentSegments().count == 1)
        let kept = try journal.timeIndex(key: testKey)
        #expect(kept.rebuilt == nil)
        #expect(kept.contains(device: key("bike"), second: 150) && kept.contains(device: key("vm"), second: 5100))
        #expect(kept.rebuilt == nil, "\(kept.rebuilt ?? "")")
        // One second more than the records gone is not accounted for.
        try "overland-times 2 through 101\ndevice \"bike\"\n100 1 98\ndevice \"vm\"\n100 1 3\n".write(toFile: path, atomically: false, encoding: .utf8)
        let over = try journal.timeIndex(key: testKey)
        #expect(!over.contains(device: key("vm"), second: 101) && over.rebuilt != nil)
    }

    /// A directory where the index belongs is set aside into `damaged/`, and the index rebuilt.
    @Test func aDirectoryInPlaceOfTheIndexIsSetAside() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        try commit((100..<110).map { point(Int64($0), "van") }, to: try JournalAppender(journal: journal))
        let path = journal.statePath(of: JournalTimeIndex.stateName)
        try FileManager.default.createDirectory(atPath: path + "/inside", withIntermediateDirectories: true)
        let index = try journal.timeIndex(key: testKey)
        #expect(index.rebuilt?.contains("set aside as") == true, "\(index.rebuilt ?? "")")
        #expect(index.contains(device: key("van"), second: 105))
        #expect(Files.exists(path) && !FileManager.default.fileExists(atPath: path + "/inside"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.journal + "/damaged").count == 1)
    }

    /// A rebuild and lookups stay correct when the file is far larger than what is held in
    /// memory (runs read a block at a time; a rebuild merges pieces into the file).
    @Test func largeIndexesAreReadInBlocks() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        // Irregular seconds: every run a single second.
        var seconds: [Int64] = []
        var second: Int64 = 1_000_000
        for i in 0..<20_000 { second += Int64(2 + (i * 7919) % 13); seconds.append(second) }
        try commit(seconds.map { point($0, "van") }, to: appender)
        let index = try journal.timeIndex(key: testKey)
        let held = Set(seconds)
        for probe in stride(from: seconds.first! - 3, through: seconds.last! + 3, by: 1) {
            #expect(index.contains(device: key("van"), second: probe) == held.contains(probe))
        }
        #expect(index.rebuilt == nil)
    }
}
