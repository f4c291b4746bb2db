import OverlandInput
import Testing

/// A small seeded generator (SplitMix64), so the fuzz inputs are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Checks what every emitted fix must satisfy, whatever the input.
func expectSane(_ fixes: [Fix], sourceLocation: SourceLocation = #_sourceLocation) {
    for fix in fixes {
        #expect(fix.latitude.isFinite && abs(fix.latitude) <= 90, sourceLocation: sourceLocation)
        #expect(fix.longitude.isFinite && abs(fix.longitude) <= 180, sourceLocation: sourceLocation)
        #expect((0..<1_000_000_000).contains(fix.nanoseconds), sourceLocation: sourceLocation)
        if let speed = fix.speed { #expect(speed.isFinite && speed >= 0, sourceLocation: sourceLocation) }
        if let course = fix.course { #expect((0...360).contains(course), sourceLocation: sourceLocation) }
        if let altitude = fix.altitude { #expect(altitude.isFinite, sourceLocation: sourceLocation) }
        if let h = fix.horizontalAccuracy { #expect(h.isFinite && h >= 0, sourceLocation: sourceLocation) }
        if let v = fix.verticalAccuracy { #expect(v.isFinite && v >= 0, sourceLocation: sourceLocation) }
    }
}

@Suite("Hostile input")
struct HostileInputTests {
    @Test("very long lines, binary frames, bad checksums, CR-only, NULs, invalid UTF-8 together")
    func mixedDamage() throws {
        let good = [
            "$GPGGA,180542.000,4529.4585,N,07741.7789,W,1,08,1.0,311.0,M,,,,*1F",
            "$GPRMC,180542.000,A,4529.4585,N,07741.7789,W,2.75,205.4,140220,,,A*42",
            checksummed("$GPGGA,180543.000,4529.4562,N,07741.7818,W,1,08,1.0,311.0,M,,,,"),
            checksummed("$GPRMC,180543.000,A,4529.4562,N,07741.7818,W,3.60,221.1,140220,,,A"),
        ]
        var bytes: [UInt8] = []
        bytes += Array(("$GPTXT," + String(repeating: "x", count: 100_000) + "\r\n").utf8)
        bytes += Array((good[0] + "\r").utf8)  // CR only
        bytes += [0xB5, 0x62, 0x01, 0x07, 0x5C, 0x00] + Array(repeating: 0x24, count: 92) + [0x00, 0x0A, 0x11, 0x22]
        bytes += Array((good[1] + "\r\n").utf8)
        bytes += Array("$GPGGA,180542.000,4529.4585,N,07741.7789,W,1,08,1.0,311.0,M,,,,*1E\r\n".utf8)  // bad sum
        bytes += [0xD3, 0x00, 0x13] + Array(repeating: 0x0D, count: 19) + [0x00, 0x00, 0x00]
        bytes += [0x00, 0x00, 0xC3, 0x28, 0xF0, 0x28, 0x8C, 0xBC, 0x0A]
        bytes += Array((good[2] + "\n" + good[3] + "\n").utf8)
        let (fixes, stats) = decodeAll(NMEAStreamDecoder(), bytes)
        #expect(fixes.map(\.time) == [1_581_703_542, 1_581_703_543])
        #expect(stats.overlongLines == 1)
        #expect(stats.badChecksums == 1)
        #expect(stats.skippedBytes > 100_000)
        for chunk in [1, 2, 7] {
            let dripped = decodeAll(NMEAStreamDecoder(), bytes, chunkSize: chunk)
            #expect(dripped.0 == fixes)
            #expect(dripped.1 == stats)
        }
    }

    @Test("seeded fuzz: random bytes and mutated captures never crash; fixes stay in range")
    func fuzz() throws {
        var random = SeededGenerator(state: 20_240_609)
        let corpus = try ["mt3339", "ublox-8", "telit-he910", "nmea-rtk", "skytraq-dgps", "hp58534a"].map {
            try Samples.capture($0)
        }
        let alphabet = Array("$!*,.0123456789ABCDEFGNPRSTVWXYZ\r\n-".utf8)
        var totalFixes = 0
        for round in 0..<3000 {
            var input: [UInt8]
            switch round % 3 {
            case 0:
                // Random bytes, biased towards NMEA's alphabet half of the time.
                let count = Int.random(in: 0...600, using: &random)
                input = (0..<count).map { _ in
                    Bool.random(using: &random) ? alphabet.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
                }
            default:
                // A slice of a real capture with mutations: flips, inserts, deletes, binary splices.
                let source = corpus.randomElement(using: &random)!
                let start = Int.random(in: 0..<source.count, using: &random)
                let end = min(source.count, start + Int.random(in: 1...3000, using: &random))
                input = Array(source[start..<end])
                for _ in 0..<Int.random(in: 1...12, using: &random) where !input.isEmpty {
                    let at = Int.random(in: 0..<input.count, using: &random)
                    switch Int.random(in: 0..<5, using: &random) {
                    case 0: input[at] ^= UInt8(1) << UInt8.random(in: 0...7, using: &random)
                    case 1: input.insert(alphabet.randomElement(using: &random)!, at: at)
                    case 2: input.remove(at: at)
                    case 3: input.insert(contentsOf: [0xB5, 0x62, 0x00, 0x24, 0x0A, 0xD3], at: at)
                    default: input[at] = UInt8.random(in: 0...255, using: &random)
                    }
                }
            }
            let policy: DatePolicy = round % 2 == 0 ? .fromStreamOnly : .fixed(year: 2020, month: 2, day: 29)
            let checksums: [ChecksumPolicy] = [.requiredOnceSeen, .optional, .required]
            let decoder = NMEAStreamDecoder(
                datePolicy: policy, checksumPolicy: checksums[round % 3], maximumLineLength: 64 + round % 200)
            let (fixes, stats) = decodeAll(decoder, input, chunkSize: round % 5 == 0 ? 1 + round % 13 : 0)
            expectSane(fixes)
            #expect(stats.fixes == fixes.count)
            totalFixes += fixes.count
            // gpsd JSON decoding of the same garbage never crashes either.
            let (jsonFixes, _) = decodeAll(GPSDStreamDecoder(), input)
            expectSane(jsonFixes)
        }
        #expect(totalFixes > 0, "the mutated captures still produce fixes")
    }

    @Test("seeded fuzz: mutated gpsd JSON never crashes; fixes stay in range")
    func fuzzJSON() throws {
        var random = SeededGenerator(state: 7)
        let source = try Samples.fixture("gpsd-beidou-bd.jsonl") + Samples.fixture("gpsd-quectel-l76k.jsonl")
        let alphabet = Array("{}[]\":,.-0123456789eE truefalsnul\\\n".utf8)
        for _ in 0..<1000 {
            let start = Int.random(in: 0..<source.count, using: &random)
            var input = Array(source[start..<min(source.count, start + Int.random(in: 1...4000, using: &random))])
            for _ in 0..<Int.random(in: 0...8, using: &random) where !input.isEmpty {
                let at = Int.random(in: 0..<input.count, using: &random)
                if Bool.random(using: &random) {
                    input[at] = alphabet.randomElement(using: &random)!
                } else {
                    input[at] = UInt8.random(in: 0...255, using: &random)
                }
            }
            let (fixes, stats) = decodeAll(GPSDStreamDecoder(), input)
            expectSane(fixes)
            #expect(stats.fixes == fixes.count)
        }
    }

    @Test("CR-only capture: the same fixes as with CR LF")
    func carriageReturnsOnly() throws {
        let bytes = try Samples.capture("mt3339")
        var crOnly: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            if byte == 0x0A {
                if index == 0 || bytes[index - 1] != 0x0D { crOnly.append(0x0D) }
            } else {
                crOnly.append(byte)
            }
        }
        #expect(!crOnly.contains(0x0A))
        let (a, statsA) = decodeAll(NMEAStreamDecoder(), bytes)
        let (b, statsB) = decodeAll(NMEAStreamDecoder(), crOnly)
        #expect(a.count == 30)
        #expect(a == b)
        #expect(statsA == statsB)
    }
}
