@testable import OverlandInput
import Testing

@Suite("NMEALineFramer")
struct NMEALineFramerTests {
    /// Frames `bytes` pushed in chunks of `chunk` (0: whole), returning the lines as text.
    func frame(_ bytes: [UInt8], chunk: Int = 0, maximum: Int = NMEALineFramer.defaultMaximumLineLength)
        -> ([String], DecoderStatistics)
    {
        var framer = NMEALineFramer(maximumLineLength: maximum)
        var lines: [String] = []
        let size = chunk > 0 ? chunk : max(bytes.count, 1)
        var i = 0
        repeat {
            let j = min(i + size, bytes.count)
            framer.append(bytes[i..<j])
            while let line = framer.nextLine() { lines.append(String(decoding: line, as: UTF8.self)) }
            i = j
        } while i < bytes.count
        if let tail = framer.finish() { lines.append(String(decoding: tail, as: UTF8.self)) }
        return (lines, framer.statistics)
    }

    func frame(_ text: String, chunk: Int = 0) -> ([String], DecoderStatistics) {
        frame(Array(text.utf8), chunk: chunk)
    }

    @Test("CR LF, LF and CR-only line endings", arguments: ["\r\n", "\n", "\r", "\r\r\n"])
    func lineEndings(ending: String) {
        let text = "$GPGGA,1*00" + ending + "$GPRMC,2*00" + ending
        let (lines, stats) = frame(text)
        #expect(lines == ["$GPGGA,1*00", "$GPRMC,2*00"])
        #expect(stats.sentences == 2)
        #expect(stats.skippedBytes == 0)
    }

    @Test("a last sentence without a terminator is returned by finish")
    func unterminatedLastLine() {
        let (lines, stats) = frame("$GPGGA,1*00\r\n$GPRMC,2*00")
        #expect(lines == ["$GPGGA,1*00", "$GPRMC,2*00"])
        #expect(stats.sentences == 2)
    }

    @Test("comment lines are skipped and counted; a $ inside a comment does not start a sentence")
    func comments() {
        let (lines, stats) = frame("# Name: test $GPGGA,not,a,sentence*00\n$GPZDA,1*00\n#\n")
        #expect(lines == ["$GPZDA,1*00"])
        #expect(stats.commentLines == 2)
        #expect(stats.lines == 3)
        // UTF-8 text in a header is still a comment; a control byte ends it as junk.
        let (more, moreStats) = frame("# Submitter: José, Zürich\r\n#\u{1}$GPZDA,2*00\n")
        #expect(more == ["$GPZDA,2*00"])
        #expect(moreStats.commentLines == 2)
        #expect(moreStats.skippedBytes == 1)
    }

    @Test("junk before a $ on the same line is skipped; the sentence survives")
    func leadingJunk() {
        // beidou-bd.log has " $GNRMC,..." (a leading space); ublox-8.log binary before "$GNVTG".
        let (lines, stats) = frame(" $GNRMC,1*00\r\nxyz$GNVTG,2*00\r\n")
        #expect(lines == ["$GNRMC,1*00", "$GNVTG,2*00"])
        #expect(stats.skippedBytes == 4)
    }

    @Test("u-blox UBX and RTCM3 frames between sentences cost only themselves")
    func binaryFramesBetweenSentences() {
        // UBX NAV-PVT-like frame (0xB5 0x62, class, id, length, payload with '$', '\n', NUL, checksum)
        // and an RTCM3 frame (0xD3, 10-bit length, payload, CRC-24Q), no terminators around them.
        let ubx: [UInt8] = [0xB5, 0x62, 0x01, 0x07, 0x06, 0x00, 0x24, 0x0A, 0x00, 0xFF, 0x2A, 0x31, 0x8C, 0x3E]
        let rtcm: [UInt8] = [0xD3, 0x00, 0x04, 0x3E, 0xD0, 0x24, 0x0D, 0x5A, 0x7B, 0x1C]
        var bytes = Array("$GPGGA,1*00\r\n".utf8) + ubx + Array("$GPRMC,2*00\r\n".utf8)
        bytes += rtcm + Array("$GPVTG,3*00\r\n".utf8)
        // A sentence followed directly by a binary frame, no CR LF: kept, it ends in *hh.
        bytes += Array("$GPZDA,4*00".utf8) + ubx + Array("\n$GPGSA,5*00\n".utf8)
        for chunk in [0, 1, 2, 7] {
            let (lines, stats) = frame(bytes, chunk: chunk)
            #expect(lines == ["$GPGGA,1*00", "$GPRMC,2*00", "$GPVTG,3*00", "$GPZDA,4*00", "$GPGSA,5*00"])
            #expect(stats.sentences == 5)
            #expect(stats.skippedBytes > 0)
        }
    }

    @Test("a sentence cut by binary data before its checksum is discarded as broken")
    func brokenSentence() {
        let bytes = Array("$GPGGA,123,45".utf8) + [0x00, 0xB5, 0x62] + Array("\r\n$GPRMC,2*00\r\n".utf8)
        let (lines, stats) = frame(bytes)
        #expect(lines == ["$GPRMC,2*00"])
        #expect(stats.brokenLines == 1)
    }

    @Test("two sentences run together: the first is kept only if complete")
    func runTogether() {
        let (lines, stats) = frame("$GPGGA,1*00$GPRMC,2*00\r\n$GPGGA,12,3$GPRMC,4*00\r\n")
        #expect(lines == ["$GPGGA,1*00", "$GPRMC,2*00", "$GPRMC,4*00"])
        #expect(stats.brokenLines == 1)
    }

    @Test("an overlong line is discarded and framing resumes at the next $, ! or line end")
    func overlongLines() {
        let long = "$GPTXT," + String(repeating: "A", count: 2000)
        let text = long + "$GPRMC,1*00\r\n" + long + "\r\n$GPGGA,2*00\r\n" + long + "!AIVDM,3*00\n"
        for chunk in [0, 1, 7, 100] {
            let (lines, stats) = frame(text, chunk: chunk)
            #expect(lines == ["$GPRMC,1*00", "$GPGGA,2*00", "!AIVDM,3*00"])
            #expect(stats.overlongLines == 3)
        }
    }

    @Test("the maximum line length is inclusive")
    func maximumLength() {
        let exact = "$" + String(repeating: "B", count: 63)
        var (lines, stats) = frame(Array((exact + "\n").utf8), maximum: 64)
        #expect(lines == [exact])
        (lines, stats) = frame(Array((exact + "B\n").utf8), maximum: 64)
        #expect(lines.isEmpty)
        #expect(stats.overlongLines == 1)
    }

    @Test("NUL bytes and invalid UTF-8 never crash and cost only the damaged line")
    func nulAndInvalidUTF8() {
        var bytes = Array("$GPGGA,1*00\n".utf8) + [0x00, 0x00, 0xC3, 0x28, 0xFF, 0xFE, 0x0A]
        bytes += Array("$GP\u{00E9}RMC,2*00\n".utf8) + Array("$GPVTG,3*00\n".utf8)
        let (lines, stats) = frame(bytes)
        #expect(lines == ["$GPGGA,1*00", "$GPVTG,3*00"])
        #expect(stats.brokenLines == 1)
    }

    @Test("empty input and input without sentences yield nothing")
    func nothing() {
        #expect(frame([UInt8]()).0.isEmpty)
        let (lines, stats) = frame("hello\r\n\r\n\n  \n")
        #expect(lines.isEmpty)
        #expect(stats.skippedBytes == 7)
    }
}

/// The framer's eight-bytes-at-a-time test must flag every word holding a byte that ends a
/// sentence body (a miss would merge two lines); it is exact, so it never slows plain text.
@Suite struct FramerWordTests {
    static func endsBody(_ byte: UInt8) -> Bool { byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: "$") }

    static func naive(_ word: UInt64) -> Bool {
        (0..<8).contains { endsBody(UInt8(truncatingIfNeeded: word >> (8 * $0))) }
    }

    @Test func everyByteAtEveryPosition() {
        let plain = UInt64(0x41_41_41_41_41_41_41_41) // "AAAAAAAA"
        for position in 0..<8 {
            for byte in UInt8.min...UInt8.max {
                let shift = UInt64(8 * position)
                let word = plain & ~(0xFF << shift) | UInt64(byte) << shift
                #expect(NMEALineFramer.mayEndBody(word) == Self.endsBody(byte), "byte \(byte) at \(position)")
            }
        }
    }

    @Test func randomWordsAgreeWithTheByteTest() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<200_000 {
            var word = generator.next() as UInt64
            if round % 2 == 0 {
                // Mostly printable words, where a false alarm would cost speed.
                word = (0..<8).reduce(UInt64(0)) { acc, index in
                    acc | UInt64(0x20 + UInt8(generator.next() % 0x5F)) << UInt64(8 * index)
                }
                if round % 6 == 0 { word ^= UInt64(generator.next() % 256) << UInt64(8 * (generator.next() % 8)) }
            }
            #expect(NMEALineFramer.mayEndBody(word) == Self.naive(word), "\(String(word, radix: 16))")
        }
    }
}
