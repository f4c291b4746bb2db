import TestSupport
import Foundation
import OverlandNMEA
import Testing

/// The structure-aware NMEA fuzz (`NMEAGenerator`): streams of well-formed sentences with
/// hostile fields through the stream decoder, which must never trap, and every fix it
/// emits must be sane. Bounded here; `scripts/soak` multiplies it. Every crash found is
/// kept in Tests/Regressions/nmea and replayed.
@Suite("NMEA structure-aware fuzz")
struct StructuredFuzzTests {
    @Test("seeded streams of every sentence type with extreme numbers, times and dates")
    func structuredStreams() {
        let seed = FuzzBudget.seed(0x13_0001)
        var generator = NMEAGenerator(seed: seed)
        var sentences = 0
        let streams = FuzzBudget.run(400, seconds: 4) { _ in
            let count = Int.random(in: 1...60, using: &generator.random)
            let bytes = generator.stream(sentences: count)
            // Dates before the stream's first: none, or a fixed day or a clock at the boundaries.
            let policy: DatePolicy = generator.pick([
                .fromStreamOnly, .fixed(year: 1980, month: 1, day: 6), .fixed(year: 2000, month: 2, day: 29),
                .fixed(year: 2079, month: 12, day: 31), .fixed(year: 2001, month: 2, day: 29), .fixed(year: 9999, month: 12, day: 31),
                .systemClock(now: { 0 }), .systemClock(now: { 1_795_000_000 }), .systemClock(now: { 253_402_300_799 }),
                .systemClock(now: { -62_167_219_200 }),
            ])
            let checksums: ChecksumPolicy = generator.pick([.requiredOnceSeen, .required, .optional])
            let decoder = NMEAStreamDecoder(datePolicy: policy, checksumPolicy: checksums)
            let (fixes, _) = decodeAll(decoder, bytes, chunkSize: Int.random(in: 0...7, using: &generator.random))
            expectSane(fixes)
            sentences += count
        }
        print("NMEA structured fuzz: seed \(seed), \(streams) streams, \(sentences) sentences")
        #expect(streams > 0)
    }

    @Test("every kept regression input decodes without a trap")
    func regressions() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Regressions/nmea")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(!files.isEmpty)
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(file)))
            let (fixes, _) = decodeAll(NMEAStreamDecoder(), bytes)
            expectSane(fixes)
        }
    }
}
