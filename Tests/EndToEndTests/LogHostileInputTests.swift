import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Garbage on standard input: the logger exits 0, logs the good sentences around it, and
/// counts what it skipped in --stats.
@Suite("overland-log: hostile input")
struct LogHostileInputTests {
    /// A UBX NAV-PVT frame (sync B5 62, class 01, id 07, length 92) with a seeded payload.
    static func ubxFrame(_ generator: inout SeededGenerator) -> [UInt8] {
        var frame: [UInt8] = [0xB5, 0x62, 0x01, 0x07, 92, 0]
        frame += (0..<92).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var a: UInt8 = 0, b: UInt8 = 0
        for byte in frame[2...] { a &+= byte; b &+= a }
        return frame + [a, b]
    }

    /// An RTCM 3 frame (preamble D3, 10-bit length 19, message 1005 and its payload, CRC).
    static func rtcmFrame(_ generator: inout SeededGenerator) -> [UInt8] {
        [0xD3, 0x00, 0x13, 0x3E, 0xD0] + (0..<17).map { _ in UInt8.random(in: 0...255, using: &generator) } + [0x2F, 0x91, 0x0C]
    }

    @Test func goodSentencesAroundGarbageAreLogged() throws {
        let sandbox = try LogSandbox()
        let epochs = LogSamples.driveEpochs().prefix(90).map { Array($0.utf8) }
        var generator = SeededGenerator(seed: 0x0DDBA11)
        var input: [UInt8] = []
        // 0..<10 clean, then 4 KiB of random bytes.
        for epoch in epochs[0..<10] { input += epoch }
        input += (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) } + Array("\r\n".utf8)
        // 10..<20, then a sentence of 1 MB without a newline until its very end, and 64 KiB of junk text.
        for epoch in epochs[10..<20] { input += epoch }
        input += Array("$GPGGA,".utf8) + [UInt8](repeating: UInt8(ascii: "7"), count: 1 << 20) + Array("\r\n".utf8)
        input += [UInt8](repeating: UInt8(ascii: "A"), count: 1 << 16) + Array("\r\n".utf8)
        // 20..<30, each epoch followed at once by a UBX and an RTCM frame, no newline between.
        for epoch in epochs[20..<30] { input += epoch + Self.ubxFrame(&generator) + Self.rtcmFrame(&generator) }
        // 30..<40 with a NUL inside each GSA sentence (the GSA is lost, the fix is not).
        for epoch in epochs[30..<40] {
            var text = epoch
            if let gsa = text.firstRange(of: Array("$GPGSA,A,3,02".utf8)) { text.insert(0, at: gsa.upperBound) }
            input += text
        }
        // 40..<50, each after a line of invalid UTF-8 and a sentence of invalid UTF-8.
        for epoch in epochs[40..<50] {
            input += [0xFF, 0xFE, 0xC3, 0x28, 0xA0, 0xA1, 0xE2, 0x28, 0xA1, 0x0D, 0x0A]
            input += Array("$GPTXT,01,01,02,".utf8) + [0xC3, 0x28, 0xF0, 0x28, 0x8C, 0x28] + Array("*00\r\n".utf8)
            input += epoch
        }
        // 50..<60 with CR-only line endings.
        for epoch in epochs[50..<60] { input += epoch.filter { $0 != 0x0A } }
        input += Array("\r\n".utf8)
        // 60..<90 clean.
        for epoch in epochs[60..<90] { input += epoch }

        let result = try sandbox.log(["--stats", "--device-id", "hostile"], stdin: input)
        #expect(result.termination == .exited(0), "\(result)")
        #expect(result.stdout.isEmpty)
        let logged = try sandbox.records()
        #expect(logged.map(\.timestamp) == epochs.indices.map { LogSamples.driveEpochTime(String(decoding: epochs[$0], as: UTF8.self)) },
                "every epoch survives the garbage around it")
        for record in logged { LogRecordCheck.check(record) }

        let lines = result.stderrLines
        #expect(lines.count == 2, "\(result.stderrText)")
        let decoder = lines.first ?? ""
        #expect(decoder.hasPrefix("overland-log: "))
        #expect(decoder.contains("1 overlong line,"), "the 1 MB line: \(decoder)")
        #expect(decoder.contains("bytes skipped"), "\(decoder)")
        #expect(decoder.contains("broken lines"), "the NULs: \(decoder)")
        #expect(decoder.hasSuffix("90 fixes"), "\(decoder)")
        #expect(lines.last?.hasPrefix("overland-log: 90 fixes, 90 points logged") == true, "\(result.stderrText)")
    }

    @Test(arguments: [1, 7, 42])
    func randomBytesAreHarmless(seed: UInt64) throws {
        let sandbox = try LogSandbox()
        var generator = SeededGenerator(seed: seed)
        var input = (0..<262_144).map { _ in UInt8.random(in: 0...255, using: &generator) }
        // Salt it with sentence starts and line ends, so the framer sees many short candidates.
        for index in stride(from: 0, to: input.count, by: 97) { input[index] = UInt8(ascii: "$") }
        for index in stride(from: 50, to: input.count, by: 89) { input[index] = 0x0A }
        let result = try sandbox.log(["--stats"], stdin: input)
        // Nothing recognisable in it: the statistics, then one line saying so, exit 65.
        #expect(result.termination == .exited(65), "\(result)")
        #expect(result.stderrLines.count == 3, "\(result.stderrText)")
        #expect(result.stderrLines.last?.contains("standard input: not gpsd JSON, u-blox UBX or NMEA 0183") == true, "\(result.stderrText)")
        #expect(result.stderrText.contains("bytes skipped") || result.stderrText.contains("broken lines")
                || result.stderrText.contains("bad checksums"), "\(result.stderrText)")
        for record in try sandbox.records() { LogRecordCheck.check(record) }
    }

    @Test func emptyInputLogsNothing() throws {
        let sandbox = try LogSandbox()
        let result = try sandbox.log(["--stats"], stdin: [])
        #expect(result.succeeded, "\(result)")
        #expect(result.stderrLines == [
            "overland-log: 0 lines, 0 fixes",
            "overland-log: 0 fixes, 0 points logged; dropped: 0 by min time, 0 by min distance, 0 by accuracy, 0 out of order, 0 not significant, 0 with tracking off",
        ])
        #expect(try sandbox.records().isEmpty)
    }
}
