import Foundation  // Only as a reference oracle (String(format:)); the module does not use it.
import Testing
import OverlandJSON

@Suite struct JSONWriterTests {
    static func written(_ body: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter()
        body(&writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test func escapesStrings() {
        #expect(Self.written { $0.appendString("plain") } == #""plain""#)
        #expect(Self.written { $0.appendString("a\"b\\c/d") } == #""a\"b\\c/d""#)
        #expect(Self.written { $0.appendString("\n\r\t\u{0}\u{1F}\u{8}\u{C}") } == #""\n\r\t\u0000\u001f\u0008\u000c""#)
        #expect(Self.written { $0.appendString("café 😀 \u{7F}") } == "\"café 😀 \u{7F}\"")
        #expect(Self.written { $0.appendString("") } == #""""#)
    }

    @Test func escapedStringsRoundTrip() throws {
        var samples = ["", "x", "\"\"", "\\", "a\u{0}b", "line\nbreak", "tab\there", "ünïcödé", "😀👍🏽", "\u{2028}\u{2029}"]
        samples.append(String(decoding: (0..<0x80).map { UInt8($0) }, as: UTF8.self))
        samples.append(String(repeating: "é\"\\\n", count: 10_000))
        for sample in samples {
            var writer = JSONWriter()
            writer.appendString(sample)
            #expect(try JSONParser.parse(writer.bytes).string == sample)
        }
    }

    @Test func integers() {
        #expect(Self.written { $0.appendInteger(0) } == "0")
        #expect(Self.written { $0.appendInteger(-1) } == "-1")
        #expect(Self.written { $0.appendInteger(1_443_711_600) } == "1443711600")
        #expect(Self.written { $0.appendInteger(Int.min) } == "-9223372036854775808")
        #expect(Self.written { $0.appendInteger(Int64.max) } == "9223372036854775807")
        #expect(Self.written { $0.appendBool(true); $0.appendBool(false); $0.appendNull() } == "truefalsenull")
        #expect(Self.written { $0.appendRaw("{\"a\":"); $0.appendRaw([0x31, 0x7D]) } == #"{"a":1}"#)
    }

    @Test func integersAtEveryDigitCount() {
        // Digits are written two at a time from the right: check both sides of every
        // power of ten, where the digit count changes.
        var power: Int64 = 1
        for _ in 0...18 {
            for value in [power - 1, power, power + 1, -(power - 1), -power, -(power + 1)] {
                #expect(Self.written { $0.appendInteger(value) } == String(value))
            }
            if power <= Int64.max / 10 { power *= 10 }
        }
        for value in [Int64.max, Int64.max - 1, Int64.min, Int64.min + 1] {
            #expect(Self.written { $0.appendInteger(value) } == String(value))
        }
    }

    @Test func tokensAppendAfterExistingBytes() {
        var writer = JSONWriter(bytes: Array("[".utf8))
        writer.appendInteger(-42)
        writer.appendRaw(",")
        writer.appendDecimal(0.0000123, maxFractionDigits: 7)
        writer.appendRaw(",")
        writer.appendString("a\u{1}b")
        writer.appendRaw("]")
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"[-42,0.0000123,"a\u0001b"]"#)
    }

    static let decimals: [(Double, Int, String)] = [
        (-77.6963150, 7, "-77.696315"), (45.4909750, 7, "45.490975"), (45.49097500, 7, "45.490975"),
        (4.25, 2, "4.25"), (34.0, 0, "34"), (34.0, 2, "34"), (0.8, 2, "0.8"), (0.5, 2, "0.5"),
        (0, 2, "0"), (-0.0, 2, "0"), (-0.004, 2, "0"), (-0.005, 2, "-0.01"), (0.005, 2, "0.01"),
        (1.005, 2, "1.01"), (4.125, 2, "4.13"), (-4.125, 2, "-4.13"), (2.5, 0, "3"), (-2.5, 0, "-3"),
        (0.49999999999999994, 0, "0"), (9.995, 2, "10"), (99.99, 1, "100"), (-1, 2, "-1"),
        (0.1, 7, "0.1"), (1e-7, 7, "0.0000001"), (5e-8, 7, "0.0000001"), (4.9e-8, 7, "0"),
        (179.99999995, 7, "180"), (-179.99999995, 7, "-180"), (-179.9999999, 7, "-179.9999999"),
        (180, 7, "180"), (0.0000001, 7, "0.0000001"), (12.3456789, 7, "12.3456789"), (12.34567895, 7, "12.345679"),
        (1e20, 2, "100000000000000000000"), (1.5e-20, 2, "0"), (.leastNonzeroMagnitude, 17, "0"), (1e-5, 7, "0.00001"),
        (123456789.125, 2, "123456789.13"), (9007199254740992, 2, "9007199254740992"),
        (0.3, 17, "0.3"), (1.0 / 3.0, 17, "0.3333333333333333"), (2.675, 2, "2.68"), (1.45, 1, "1.5"),
        (.nan, 2, "0"), (.infinity, 2, "0"), (-.infinity, 2, "0"), (4.7, -3, "5"),
        (1.0000001, 7, "1.0000001"), (0.0000123, 7, "0.0000123"), (10.01, 7, "10.01"), (-0.1010101, 7, "-0.1010101"),
        (8_796_093.0222, 6, "8796093.0222"), (.greatestFiniteMagnitude, 17, "17976931348623157" + String(repeating: "0", count: 292)),
    ]

    @Test(arguments: decimals)
    func formatsDecimals(value: Double, digits: Int, expected: String) {
        #expect(Self.written { $0.appendDecimal(value, maxFractionDigits: digits) } == expected)
    }

    @Test func hugeValuesHaveNoExponent() throws {
        let text = Self.written { $0.appendDecimal(1.5e300, maxFractionDigits: 2) }
        #expect(text == "15" + String(repeating: "0", count: 299))
        #expect(try JSONParser.parse(text).double == 1.5e300)
    }

    /// The reference: decimal text rounded half away from zero by integer arithmetic.
    static func roundedText(units: Int64, scale: Int, digits: Int) -> String {
        var magnitude = units.magnitude
        var scale = scale
        if scale > digits {
            var divisor: UInt64 = 1
            for _ in 0..<(scale - digits) { divisor *= 10 }
            let remainder = magnitude % divisor
            magnitude = magnitude / divisor + (remainder * 2 >= divisor ? 1 : 0)
            scale = digits
        }
        var text = String(magnitude)
        if scale > 0 {
            if text.count <= scale { text = String(repeating: "0", count: scale - text.count + 1) + text }
            text.insert(".", at: text.index(text.endIndex, offsetBy: -scale))
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return magnitude == 0 ? "0" : (units < 0 ? "-" : "") + text
    }

    /// Any decimal of up to 15 significant digits, read into a Double, must format as
    /// that decimal rounded by hand, ties included.
    @Test func decimalsMatchHandRounding() {
        var random = SplitMix64(seed: 2015)
        for iteration in 0..<200_000 {
            let magnitudeDigits = 1 + Int(random.next() % 15)
            var limit: UInt64 = 1
            for _ in 0..<magnitudeDigits { limit *= 10 }
            var units = Int64(random.next() % limit)
            // Force many exact ties at the rounding position.
            if iteration % 3 == 0 { units = units / 10 * 10 + 5 }
            if random.next() % 2 == 0 { units = -units }
            let scale = Int(random.next() % 11)
            let text = Self.roundedText(units: units, scale: scale, digits: scale)
            let value = Double(text)!
            let digits = Int(random.next() % 9)
            let expected = Self.roundedText(units: units, scale: scale, digits: digits)
            let actual = Self.written { $0.appendDecimal(value, maxFractionDigits: digits) }
            #expect(actual == expected, "\(text) to \(digits) digits")
            if actual != expected { break }
        }
    }

    /// Away from exact ties, the result matches C's printf of the binary value.
    @Test func decimalsMatchPrintfAwayFromTies() {
        var random = SplitMix64(seed: 99)
        for _ in 0..<100_000 {
            let value = (Double(random.next() >> 11) / Double(1 << 53) - 0.5) * 400
            for digits in [0, 2, 7] {
                var scale = 1.0
                for _ in 0..<digits { scale *= 10 }
                let fraction = (value.magnitude * scale).truncatingRemainder(dividingBy: 1)
                guard abs(fraction - 0.5) > 1e-6 else { continue }
                var reference = String(format: "%.\(digits)f", value)
                if reference.contains(".") {
                    while reference.hasSuffix("0") { reference.removeLast() }
                    if reference.hasSuffix(".") { reference.removeLast() }
                }
                if reference == "-0" { reference = "0" }
                let actual = Self.written { $0.appendDecimal(value, maxFractionDigits: digits) }
                #expect(actual == reference, "\(value) to \(digits) digits")
                if actual != reference { return }
            }
        }
    }

    @Test func valuesRoundTrip() throws {
        let value: JSONValue = .object([
            "b": .array([.null, .bool(true), .bool(false), .number(-0.5), .number(1e-7), .number(1e300), .number(42)]),
            "a": .string("q\"uote\\ \u{1}"),
            "c": .object([:]),
        ])
        var writer = JSONWriter()
        writer.appendValue(value)
        #expect(String(decoding: writer.bytes, as: UTF8.self).hasPrefix(#"{"a":"q\"uote\\ \u0001","b":[null,true,false,-0.5,1e-07,1e+300,42]"#))
        #expect(try JSONParser.parse(writer.bytes) == value)
    }
}
