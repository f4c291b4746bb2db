import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Journals from an untrusted stick: a seeded mutation fuzz of real segment files (the
/// reader never crashes and never returns a line that was not written under that number),
/// and malicious journals through the real commands (symlinks out of the journal, names
/// that are no segments, a gzip bomb, a member spliced from another journal, a huge line,
/// a FIFO, a huge file).
@Suite struct HostileJournalTests {
    // MARK: - Building members by the spec (journal-format.md section 5)

    static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    /// Raw deflate data of `payload`, from /bin/gzip (header and trailer taken off).
    static func deflate(_ payload: [UInt8]) throws -> [UInt8] {
        let gzip = try ToolRunner(executable: "/bin/gzip").run(["-c", "-n", "-9"], stdin: payload)
        guard gzip.succeeded, gzip.stdout.count > 18 else { throw ToolRunnerError(description: "gzip: \(gzip)") }
        return Array(gzip.stdout[10..<(gzip.stdout.count - 8)])
    }

    static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    /// A records member: header as the spec lays it out, `deflate`, CRC and ISIZE as given.
    static func member(firstSequence: UInt64, count: UInt32, journalID: [UInt8], deflate: [UInt8], crc: UInt32, isize: UInt32) -> [UInt8] {
        var header: [UInt8] = [0x1F, 0x8B, 0x08, 0x06, 0, 0, 0, 0, 0, 255]
        header += littleEndian(UInt16(40)) + [0x4F, 0x4A] + littleEndian(UInt16(36)) + [1, 1, 0, 0]
        header += littleEndian(UInt32(54 + deflate.count + 8)) + littleEndian(firstSequence) + littleEndian(count) + journalID
        header += littleEndian(UInt16(truncatingIfNeeded: crc32(header)))
        return header + deflate + littleEndian(crc) + littleEndian(isize)
    }

    static func journalID(_ path: String) throws -> [UInt8] {
        let hex = try Journal(path: path).id.description
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
    }

    /// Two sealed segments and an active one, all written by the real tools.
    static func makeJournal(_ sandbox: ReliabilitySandbox, journal: String? = nil, first: Int = 0) throws {
        let journal = journal ?? sandbox.journal
        for part in 0..<3 {
            try sandbox.logEpochs((first + part * 60)..<(first + part * 60 + 60), journal: journal, extra: ["--commit-interval", "0"])
            if part < 2 { #expect(try sandbox.overland.run(["journal", "seal", "--journal", journal]).succeeded) }
        }
        for part in 0..<4 {
            let start = first + 180 + part * 10
            try sandbox.logEpochs(start..<start + 10, journal: journal)
        }
    }

    // MARK: - Seeded mutation fuzz

    enum Mutation: CaseIterable {
        case overwrite, flipBits, insert, delete, truncate, zeroRange, duplicateMember, spliceForeign, swapMembers,
             headerField, appendGarbage, appendSegment
    }

    static func memberOffsets(_ bytes: [UInt8]) -> [Int] {
        FaultPowerLossTests.members(bytes).map(\.offset)
    }

    static func mutate(_ bytes: inout [UInt8], foreign: [UInt8], other: [UInt8], random: inout SeededGenerator) -> Mutation {
        let mutation = Mutation.allCases.randomElement(using: &random)!
        guard !bytes.isEmpty else {
            bytes = Array(foreign.prefix(Int.random(in: 0...foreign.count, using: &random)))
            return mutation
        }
        let offsets = memberOffsets(bytes)
        func anyOffset() -> Int { Int.random(in: 0..<bytes.count, using: &random) }
        switch mutation {
        case .overwrite:
            let start = anyOffset()
            for index in start..<min(bytes.count, start + Int.random(in: 1...8, using: &random)) {
                bytes[index] = UInt8.random(in: 0...255, using: &random)
            }
        case .flipBits:
            for _ in 0..<Int.random(in: 1...4, using: &random) { bytes[anyOffset()] ^= 1 << UInt8.random(in: 0...7, using: &random) }
        case .insert:
            bytes.insert(contentsOf: (0..<Int.random(in: 1...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) },
                         at: anyOffset())
        case .delete:
            let start = anyOffset()
            bytes.removeSubrange(start..<min(bytes.count, start + Int.random(in: 1...64, using: &random)))
        case .truncate:
            bytes.removeSubrange(anyOffset()...)
        case .zeroRange:
            let start = anyOffset()
            for index in start..<min(bytes.count, start + Int.random(in: 1...512, using: &random)) { bytes[index] = 0 }
        case .duplicateMember, .swapMembers:
            guard offsets.count >= 2 else { fallthrough }
            let index = Int.random(in: 0..<(offsets.count - 1), using: &random)
            let member = Array(bytes[offsets[index]..<offsets[index + 1]])
            if mutation == .duplicateMember {
                bytes.insert(contentsOf: member, at: offsets.randomElement(using: &random)!)
            } else {
                bytes.removeSubrange(offsets[index]..<offsets[index + 1])
                bytes.insert(contentsOf: member, at: min(bytes.count, offsets[index] + Int.random(in: 0...400, using: &random)))
            }
        case .spliceForeign:
            let foreignOffsets = memberOffsets(foreign)
            guard foreignOffsets.count >= 2 else { fallthrough }
            let index = Int.random(in: 0..<(foreignOffsets.count - 1), using: &random)
            let at = Bool.random(using: &random) ? (offsets.randomElement(using: &random) ?? 0) : anyOffset()
            bytes.insert(contentsOf: foreign[foreignOffsets[index]..<foreignOffsets[index + 1]], at: at)
        case .headerField:
            guard let start = offsets.randomElement(using: &random), start + 54 <= bytes.count else { fallthrough }
            // Size, first sequence, record count or kind, re-checksummed so that it passes
            // the header CRC and reaches the deeper checks.
            let field = [(20, 4), (24, 8), (32, 4), (17, 1)].randomElement(using: &random)!
            for index in start + field.0..<start + field.0 + field.1 { bytes[index] = UInt8.random(in: 0...255, using: &random) }
            let crc = crc32(bytes[start..<start + 52])
            bytes[start + 52] = UInt8(crc & 0xFF)
            bytes[start + 53] = UInt8((crc >> 8) & 0xFF)
        case .appendGarbage:
            bytes += (0..<Int.random(in: 1...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        case .appendSegment:
            bytes += other
        }
        return mutation
    }

    @Test func seededMutationsOfRealSegments() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-fuzz")
        try Self.makeJournal(sandbox)
        let foreignJournal = sandbox.directory.appending("foreign")
        try Self.makeJournal(sandbox, journal: foreignJournal, first: 10_000)
        let original = try sandbox.records().records
        var written: [UInt64: String] = [:]
        for record in original { written[record.sequence] = record.line }
        let segmentNames = ReliabilitySandbox.files(under: sandbox.journal + "/segments")
        #expect(segmentNames.count == 3)
        let segments = try segmentNames.map { try Self.bytes(sandbox.journal + "/segments/" + $0) }
        let foreign = try Self.bytes(foreignJournal + "/segments/" + (try #require(ReliabilitySandbox.files(under: foreignJournal + "/segments").last)))

        var random = Soak.generator(0xF0_22ED)
        let iterations = Soak.count(400)
        let cliEvery = 20
        var wrong = 0
        var returned = 0
        var damaged = 0
        var throughCLI = 0
        let work = sandbox.directory.appending("work")
        for iteration in 0..<iterations {
            try? FileManager.default.removeItem(atPath: work)
            try copyTree(sandbox.journal, to: work)
            let target = Int.random(in: 0..<segments.count, using: &random)
            var bytes = segments[target]
            var applied: [Mutation] = []
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                applied.append(Self.mutate(&bytes, foreign: foreign, other: segments[(target + 1) % segments.count], random: &random))
            }
            try Self.write(bytes, to: work + "/segments/" + segmentNames[target])
            let context = "iteration \(iteration): \(applied) on \(segmentNames[target])"

            func checkRead(first: Bool) -> [StoredRecord]? {
                do {
                    let (records, issues) = try ReliabilitySandbox.read(work)
                    if first && !issues.isEmpty { damaged += 1 }
                    for record in records where written[record.sequence] != record.line {
                        wrong += 1
                        Issue.record("\(context): record \(record.sequence) was never written: \(record.line.prefix(120))")
                    }
                    return records
                } catch {
                    // Refusing the journal outright is allowed (e.g. a member of another
                    // journal where the newest segment must start); a wrong record is not.
                    return nil
                }
            }
            let records = checkRead(first: true)
            returned += records?.count ?? 0

            if iteration % cliEvery == 0 {
                throughCLI += 1
                let verify = try sandbox.verify(work)
                #expect(verify.exitStatus == 0 || verify.exitStatus == 65, "\(context): \(verify)")
                let dryRun = try sandbox.sync.run(["--journal", work, "--url", "http://127.0.0.1:9/x", "--dry-run"])
                #expect(dryRun.exitStatus == 0 || dryRun.exitStatus == 65 || dryRun.exitStatus == 74, "\(context): \(dryRun)")
                if let raw = Delivery.rawLocations(dryRun.stdout) {
                    let lines = Set(written.values)
                    for element in Delivery.elements(of: raw) where !lines.contains(element) {
                        Issue.record("\(context): the dry run shows a record that was never written")
                    }
                }
            }
            // Recovery (an appender opening) keeps what a reader could read, and no more.
            if let records {
                do {
                    _ = try JournalAppender(journal: Journal(path: work))
                    let after = checkRead(first: false)
                    #expect(after == records, "\(context): \(records.count) records read before recovery, \(after?.count ?? -1) after")
                } catch {
                    // A refusal (a file it will not touch) is fine; a crash is not.
                }
            }
        }
        #expect(wrong == 0)
        let area = "hostile input: journal reader, seeded mutations of real segments"
        Figures.record(area, "mutated journals read (wrong records in the lost column)", iterations, lost: wrong)
        Figures.record(area, "mutated journals also through verify and sync --dry-run", throughCLI)
        Figures.record(area, "reads that reported damage", damaged)
        _ = returned
    }

    // MARK: - Malicious journals through the commands

    struct Outcome {
        var verify: ToolResult
        var dryRun: ToolResult
        var log: ToolResult
        /// With `measured`: each command's peak resident set and its tool's floor (the
        /// peak of its `--help`), in bytes, by command name.
        var peaks: [String: (peak: Int, floor: Int)] = [:]
    }

    /// verify, sync --dry-run and a logger run on `journal`; none may crash or hang.
    /// `measured` runs each under GNU time for its own peak resident set (a child's, not
    /// the test process's, which every test running beside it shares).
    static func runCommands(_ sandbox: ReliabilitySandbox, _ journal: String, context: String, measured: Bool = false,
                            sourceLocation: SourceLocation = #_sourceLocation) throws -> Outcome {
        var peaks: [String: (peak: Int, floor: Int)] = [:]
        func run(_ name: String, _ tool: ToolRunner, _ arguments: [String]) throws -> ToolResult {
            guard measured else { return try tool.run(arguments) }
            let (_, floor) = try HostileMeasure.peakRSS(tool, ["--help"])
            let (result, peak) = try HostileMeasure.peakRSS(tool, arguments)
            peaks[name] = (peak, floor)
            return result
        }
        let verify = try run("verify", sandbox.overland, ["journal", "verify", "--journal", journal])
        let dryRun = try run("sync --dry-run", sandbox.sync, ["--journal", journal, "--url", "http://127.0.0.1:9/x", "--dry-run"])
        let log = try run("overland-log", sandbox.log, ["--journal", journal, "--device-id", "reliability",
                                                        try sandbox.file("hostile-\(context.filter { $0.isLetter || $0.isNumber }).nmea", SyntheticDrive.text(900..<905))])
        for (name, result) in [("verify", verify), ("sync --dry-run", dryRun), ("overland-log", log)] {
            #expect(result.signal == nil && !result.timedOut, "\(context): \(name) crashed or hung: \(result)", sourceLocation: sourceLocation)
            // Nothing from outside the journal, no terminal escapes from a hostile name.
            #expect(!result.stdoutText.contains("root:x:0:0") && !result.stderrText.contains("root:x:0:0"),
                    "\(context): \(name) printed /etc/passwd", sourceLocation: sourceLocation)
            #expect(!result.stdout.contains(0x1B) && !result.stderr.contains(0x1B) && !result.stderrText.contains("\u{202E}"),
                    "\(context): \(name) printed an escape or a direction override", sourceLocation: sourceLocation)
            #expect(result.stderrLines.allSatisfy { $0.isEmpty || $0.hasPrefix("overland") }, "\(context): \(name): a forged line: \(result.stderrText)",
                    sourceLocation: sourceLocation)
        }
        return Outcome(verify: verify, dryRun: dryRun, log: log, peaks: peaks)
    }

    @Test(arguments: ["newest", "older"])
    func segmentSymlinkToEtcPasswd(which: String) throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-hostile")
        try Self.makeJournal(sandbox)
        let names = ReliabilitySandbox.files(under: sandbox.journal + "/segments")
        let name = try #require(which == "newest" ? names.last : names.first)
        let path = sandbox.journal + "/segments/" + name
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/etc/passwd")
        var before = stat()
        stat("/etc/passwd", &before)
        let outcome = try Self.runCommands(sandbox, sandbox.journal, context: "symlink \(which)")
        #expect(outcome.verify.exitStatus == 65 && outcome.verify.stderrText.contains("symbolic link"), "\(outcome.verify)")
        outcome.dryRun.expectExit(65)
        outcome.log.expectExit(65)
        var after = stat()
        stat("/etc/passwd", &after)
        #expect(after.st_size == before.st_size && after.st_mtim.tv_sec == before.st_mtim.tv_sec)
        var link = stat()
        #expect(lstat(path, &link) == 0 && (link.st_mode & S_IFMT) == S_IFLNK, "the link is left for a person to look at")
        Figures.record("hostile input: malicious journals through the commands", "symlink segment -> /etc/passwd (\(which))", 3)
    }

    @Test(arguments: ["segments", "manifest.json", "cursor.json", "journal.lock"])
    func journalFileSymlinkedOutside(name: String) throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-hostile")
        try Self.makeJournal(sandbox)
        let path = sandbox.journal + "/" + name
        let outside = sandbox.directory.appending("outside-" + name)
        if FileManager.default.fileExists(atPath: path) {
            try FileManager.default.moveItem(atPath: path, toPath: outside)
        } else {
            try Data("{}".utf8).write(to: URL(fileURLWithPath: outside))
        }
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: outside)
        let outcome = try Self.runCommands(sandbox, sandbox.journal, context: "\(name) symlink")
        // verify opens the cursor too (it checks the cursor against the segments): every
        // command refuses every link.
        #expect(outcome.verify.exitStatus == 65 && outcome.verify.stderrText.contains("symbolic link"), "\(outcome.verify)")
        #expect(outcome.dryRun.exitStatus == 65 && outcome.dryRun.stderrText.contains("symbolic link"), "\(outcome.dryRun)")
        outcome.log.expectExit(65)
        #expect(outcome.log.stderrText.contains("symbolic link"),
                "\(outcome.log)")
        Figures.record("hostile input: malicious journals through the commands", "\(name) as a symlink out", 3)
    }

    /// Names that are no segments, some built to look like paths or to move a terminal.
    @Test func namesThatAreNoSegments() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-hostile")
        try Self.makeJournal(sandbox)
        let before = try sandbox.records().records
        let real = try Self.bytes(sandbox.journal + "/segments/" + (try #require(ReliabilitySandbox.files(under: sandbox.journal + "/segments").last)))
        let names = ["..jsonl.gz", "...", "-rf", " 0000000000000000999.jsonl.gz", "00000000000000000999.jsonl.gz.", "00000000000000000999.JSONL.GZ",
                     "0000000000000000099\u{1B}[31m.jsonl.gz", "00000000000000000999\n.jsonl.gz", "\u{202E}zg.lnosj.99900000000000000000",
                     String(repeating: "0", count: 200) + ".jsonl.gz", "99999999999999999999.jsonl.gz", "%2e%2e%2fetc%2fpasswd"]
        for name in names { try Self.write(real, to: sandbox.journal + "/segments/" + name) }
        let outcome = try Self.runCommands(sandbox, sandbox.journal, context: "hostile names")
        #expect(outcome.verify.exitStatus == 0, "names that are no segments are reported, not damage: \(outcome.verify)")
        #expect(outcome.log.succeeded, "\(outcome.log)")
        let after = try sandbox.records().records
        #expect(Array(after.prefix(before.count)) == before && after.count == before.count + 5)
        for name in names {
            #expect(try Self.bytes(sandbox.journal + "/segments/" + name) == real, "\(name.debugDescription) was touched")
        }
        Figures.record("hostile input: malicious journals through the commands", "names that are no segments", names.count)
    }

    /// A member whose header and ISIZE claim 48 bytes and whose data inflates to 64 MiB,
    /// or one of valid lines over the 1 MiB limit, honestly announced: refused, each
    /// command's peak resident set within 32 MiB of its tool's floor (an inflating reader
    /// would hold the 64 MiB).
    @Test(arguments: ["64 MiB claimed as 48 bytes", "over 1 MiB honestly announced"])
    func gzipBomb(kind: String) throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-hostile")
        try Self.makeJournal(sandbox)
        let before = try sandbox.records().records
        let payload: [UInt8]
        if kind.hasPrefix("64") {
            payload = [UInt8](repeating: 0, count: 64 << 20)
        } else {
            payload = Array(String(repeating: "{\"p\":\"" + String(repeating: "x", count: 60_000) + "\"}\n", count: 20).utf8)
            #expect(payload.count > 1 << 20)
        }
        let honest = !kind.hasPrefix("64")
        let bomb = Self.member(firstSequence: UInt64(before.count), count: honest ? 20 : 1, journalID: try Self.journalID(sandbox.journal),
                               deflate: try Self.deflate(payload), crc: honest ? Self.crc32(payload) : 0,
                               isize: honest ? UInt32(payload.count) : 48)
        // Into an older, sealed segment (before its seal member), where it is damage.
        let name = (try #require(ReliabilitySandbox.files(under: sandbox.journal + "/segments").first))
        let path = sandbox.journal + "/segments/" + name
        var bytes = try Self.bytes(path)
        let seal = (try #require(FaultPowerLossTests.members(bytes).last))
        bytes.insert(contentsOf: bomb, at: seal.offset)
        try Self.write(bytes, to: path)
        let outcome = try Self.runCommands(sandbox, sandbox.journal, context: "gzip bomb", measured: true)
        #expect(outcome.peaks.count == 3)
        for (command, figures) in outcome.peaks.sorted(by: { $0.key < $1.key }) {
            #expect(figures.peak > 0 && figures.peak < figures.floor + (32 << 20),
                    "\(command): peak RSS \(figures.peak >> 20) MiB, floor \(figures.floor >> 20) MiB")
            print("gzip bomb (\(kind)): \(command) peak RSS \(figures.peak >> 10) KiB, floor \(figures.floor >> 10) KiB")
        }
        #expect(outcome.verify.exitStatus == 65 && outcome.verify.stderrText.contains(name), "\(outcome.verify)")
        #expect(try sandbox.records().records.prefix(before.count) == before.prefix(before.count))
        let repair = try sandbox.overland.run(["journal", "repair", "--journal", sandbox.journal])
        #expect(repair.succeeded, "\(repair)")
        #expect(try sandbox.verify().succeeded)
        Figures.record("hostile input: malicious journals through the commands", "gzip bomb (\(kind))", 1)
    }

    /// A member of another journal, spliced into the active segment between two members:
    /// its records never come out; repair sets the segment aside and keeps every own record.
    @Test func memberSplicedFromAnotherJournal() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-hostile")
        try Self.makeJournal(sandbox)
        let foreignJournal = sandbox.directory.appending("foreign")
        try Self.makeJournal(sandbox, journal: foreignJournal, first: 10_000)
        let before = try sandbox.records().records
        let foreignName = (try #require(ReliabilitySandbox.files(under: foreignJournal + "/segments").last))
        let foreign = try Self.bytes(foreignJournal + "/segments/" + foreignName)
        let foreignMembers = FaultPowerLossTests.members(foreign)
        try #require(foreignMembers.count > 1)
        let foreignMember = foreignMembers[1]
        let name = (try #require(ReliabilitySandbox.files(under: sandbox.journal + "/segments").last))
        let path = sandbox.journal + "/segments/" + name
        var bytes = try Self.bytes(path)
        let members = FaultPowerLossTests.members(bytes)
        try #require(members.count > 2)
        let at = members[2].offset
        bytes.insert(contentsOf: foreign[foreignMember.offset..<foreignMember.offset + foreignMember.size], at: at)
        try Self.write(bytes, to: path)

        let outcome = try Self.runCommands(sandbox, sandbox.journal, context: "spliced member")
        outcome.verify.expectExit(65)
        #expect(!outcome.dryRun.stdoutText.contains("\"timestamp\":\"2024-03-01T02:4"), "a foreign record was shown")
        let records = try sandbox.records().records
        #expect(records.allSatisfy { (SyntheticDrive.index(ofRecord: $0.line) ?? 0) < 10_000 }, "a foreign record came out")
        #expect(Array(records.prefix(before.count)) == before, "every own record is kept")
        let repair = try sandbox.overland.run(["journal", "repair", "--journal", sandbox.journal])
        #expect(repair.succeeded, "\(repair)")
        #expect(try sandbox.verify().succeeded)
        #expect(!ReliabilitySandbox.files(under: sandbox.journal + "/damaged").isEmpty)
        Figures.record("hostile input: malicious journals through the commands", "member spliced from another journal", 1)
    }

    /// A valid JSON line of 70,000 bytes, honestly framed: over the record limit, refused.
    @Test func hugeLine() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-hostile")
        try Self.makeJournal(sandbox)
        let before = try sandbox.records().records
        let payload = Array(("{\"type\":\"Feature\",\"pad\":\"" + String(repeating: "x", count: 70_000) + "\"}\n").utf8)
        let huge = Self.member(firstSequence: UInt64(before.count), count: 1, journalID: try Self.journalID(sandbox.journal),
                               deflate: try Self.deflate(payload), crc: Self.crc32(payload), isize: UInt32(payload.count))
        let name = (try #require(ReliabilitySandbox.files(under: sandbox.journal + "/segments").first))
        let path = sandbox.journal + "/segments/" + name
        var bytes = try Self.bytes(path)
        bytes.insert(contentsOf: huge, at: (try #require(FaultPowerLossTests.members(bytes).last)).offset)
        try Self.write(bytes, to: path)
        let outcome = try Self.runCommands(sandbox, sandbox.journal, context: "huge line")
        outcome.verify.expectExit(65)
        #expect(!outcome.dryRun.stdoutText.contains("xxxxxxxxxx"))
        #expect(try sandbox.records().records.allSatisfy { $0.line.utf8.count <= 65_536 })
        Figures.record("hostile input: malicious journals through the commands", "a 70,000-byte line", 1)
    }

    /// A FIFO and a 300 MiB sparse file named like segments: nothing blocks, nothing is read
    /// whole.
    @Test(arguments: ["fifo", "huge"])
    func specialFilesNamedLikeSegments(kind: String) throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-hostile")
        try Self.makeJournal(sandbox)
        let path = sandbox.journal + "/segments/00000000000000009999.jsonl.gz"
        if kind == "fifo" {
            #expect(mkfifo(path, 0o600) == 0)
        } else {
            let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            #expect(ftruncate(fd, 300 << 20) == 0)
            close(fd)
        }
        let outcome = try Self.runCommands(sandbox, sandbox.journal, context: kind)
        outcome.verify.expectExit(65)
        Figures.record("hostile input: malicious journals through the commands", "a \(kind == "fifo" ? "FIFO" : "300 MiB sparse file") named like a segment", 1)
    }
}
