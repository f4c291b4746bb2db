import Testing
import OverlandJSON

@Suite struct JSONParserTests {
    static let validDocuments: [(String, JSONValue)] = [
        ("{}", .object([:])),
        ("[]", .array([])),
        ("  {\"a\" : [1, 2.5, -3e2] }\r\n\t", .object(["a": .array([.number(1), .number(2.5), .number(-300)])])),
        ("true", .bool(true)),
        ("false", .bool(false)),
        ("null", .null),
        ("0", .number(0)),
        ("-0", .number(0)),
        ("\"\"", .string("")),
        ("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", .string("a\"b\\c/d\u{8}\u{c}\n\r\t")),
        ("\"\\u0041\\u00e9\\u20AC\"", .string("Aé€")),
        ("\"\\ud83d\\ude00\"", .string("😀")),
        ("\"\\u0000\"", .string("\u{0}")),
        ("\"é€😀\"", .string("é€😀")),
        ("{\"a\":1,\"a\":2}", .object(["a": .number(2)])),
        ("[[[]],{}]", .array([.array([.array([])]), .object([:])])),
        ("{\"k\":{\"n\":null,\"t\":true}}", .object(["k": .object(["n": .null, "t": .bool(true)])])),
        ("1E+2", .number(100)),
        ("1e-2", .number(0.01)),
        ("0.5", .number(0.5)),
        ("-77.696315", .number(-77.696315)),
        ("123456789012345678901234567890", .number(123456789012345678901234567890.0)),
        ("1e-400", .number(0)),
    ]

    @Test(arguments: validDocuments)
    func parsesValidDocument(text: String, expected: JSONValue) throws {
        #expect(try JSONParser.parse(text) == expected)
        #expect(try JSONParser.parse(Array(text.utf8)) == expected)
        #expect(try JSONParser.parse(Array(text.utf8)[...]) == expected)
    }

    static let invalidDocuments: [(String, JSONError.Reason, Int)] = [
        ("", .unexpectedEnd, 0),
        ("   ", .unexpectedEnd, 3),
        ("{", .unexpectedEnd, 1),
        ("{\"a\":1,}", .unexpectedByte(0x7D), 7),
        ("[1,]", .unexpectedByte(0x5D), 3),
        ("[1 2]", .unexpectedByte(0x32), 3),
        ("{\"a\" 1}", .unexpectedByte(0x31), 5),
        ("{a:1}", .unexpectedByte(0x61), 1),
        ("{\"a\":1}}", .trailingData, 7),
        ("{} {}", .trailingData, 3),
        ("01", .invalidNumber, 0),
        ("-01", .invalidNumber, 0),
        ("1.", .unexpectedEnd, 2),
        ("1.e5", .invalidNumber, 2),
        ("1e", .unexpectedEnd, 2),
        ("1e+", .unexpectedEnd, 3),
        ("-", .unexpectedEnd, 1),
        ("-a", .invalidNumber, 0),
        ("+1", .unexpectedByte(0x2B), 0),
        (".5", .unexpectedByte(0x2E), 0),
        ("NaN", .unexpectedByte(0x4E), 0),
        ("Infinity", .unexpectedByte(0x49), 0),
        ("-Infinity", .invalidNumber, 0),
        ("1e400", .numberOutOfRange, 0),
        ("-1e400", .numberOutOfRange, 0),
        ("tru", .unexpectedEnd, 3),
        ("trux", .unexpectedByte(0x78), 3),
        ("nul", .unexpectedEnd, 3),
        ("\"abc", .unexpectedEnd, 4),
        ("\"a\nb\"", .controlCharacter(0x0A), 2),
        ("\"a\tb\"", .controlCharacter(0x09), 2),
        ("\"\\x\"", .invalidEscape, 1),
        ("\"\\u12g4\"", .invalidEscape, 1),
        ("\"\\u12\"", .invalidEscape, 1),
        ("\"\\ud800\"", .unpairedSurrogate, 1),
        ("\"\\ud800\\n\"", .unpairedSurrogate, 1),
        ("\"\\ud800\\u0041\"", .unpairedSurrogate, 1),
        ("\"\\udc00\"", .unpairedSurrogate, 1),
        ("\"\\ud800", .unexpectedEnd, 7),
        ("[\"a\" : 1]", .unexpectedByte(0x3A), 5),
        ("{\"a\":1 \"b\":2}", .unexpectedByte(0x22), 7),
        ("\u{FEFF}{}", .unexpectedByte(0xEF), 0),
    ]

    @Test(arguments: invalidDocuments)
    func rejectsInvalidDocument(text: String, reason: JSONError.Reason, offset: Int) {
        #expect(throws: JSONError(reason, at: offset)) { try JSONParser.parse(text) }
    }

    static let invalidUTF8: [[UInt8]] = [
        [0x80],  // lone continuation
        [0xC0, 0xAF],  // overlong '/'
        [0xC1, 0xBF],  // overlong
        [0xE0, 0x80, 0xAF],  // overlong
        [0xED, 0xA0, 0x80],  // UTF-16 surrogate D800 encoded
        [0xF0, 0x80, 0x80, 0xAF],  // overlong
        [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
        [0xF5, 0x80, 0x80, 0x80],
        [0xFF],
        [0xC3, 0x28],  // missing continuation
        [0xE2, 0x82, 0x28],
    ]

    @Test(arguments: invalidUTF8)
    func rejectsIllFormedUTF8(sequence: [UInt8]) {
        let document = [UInt8(ascii: "\"")] + sequence + [UInt8(ascii: "\"")]
        #expect(throws: JSONError(.invalidUTF8, at: 1)) { try JSONParser.parse(document) }
        let object = Array("{\"k\":\"".utf8) + sequence + Array("\"}".utf8)
        #expect(!JSONValidator.isValidObject(object))
    }

    @Test func acceptsBoundaryUTF8() throws {
        let samples: [[UInt8]] = [
            [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80],
            [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
        ]
        for sample in samples {
            let document = [UInt8(ascii: "\"")] + sample + [UInt8(ascii: "\"")]
            let value = try JSONParser.parse(document)
            #expect(value.string.map { Array($0.utf8) } == sample)
        }
    }

    @Test func depthBombFailsWithoutRecursion() {
        let bomb = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        #expect(throws: JSONError(.tooDeep(limit: 64), at: 64)) { try JSONParser.parse(bomb) }
        let objects = Array(String(repeating: "{\"a\":", count: 100_000).utf8)
        #expect(throws: JSONError(.tooDeep(limit: 64), at: 64 * 5)) { try JSONParser.parse(objects) }
        // A larger limit costs heap, not stack, while parsing (the parser keeps its own stack).
        let deep = Array((String(repeating: "[", count: 2_000) + String(repeating: "]", count: 2_000)).utf8)
        #expect((try? JSONParser.parse(deep, limits: JSONLimits(maxDepth: 2_000))) != nil)
    }

    @Test func depthLimitIsInclusive() throws {
        let nested = { (depth: Int) in
            Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
        }
        #expect(throws: Never.self) { try JSONParser.parse(nested(64)) }
        #expect(throws: JSONError(.tooDeep(limit: 64), at: 64)) { try JSONParser.parse(nested(65)) }
        #expect(throws: JSONError(.tooDeep(limit: 3), at: 3)) {
            try JSONParser.parse(nested(4), limits: JSONLimits(maxDepth: 3))
        }
    }

    @Test func sizeLimits() throws {
        let big = "\"" + String(repeating: "x", count: 5_000_000) + "\""
        #expect(try JSONParser.parse(big, limits: JSONLimits(maxStringBytes: 5_000_000)).string?.utf8.count == 5_000_000)
        #expect(throws: JSONError(.stringTooLong(limit: 1 << 20), at: 1)) { try JSONParser.parse(big) }
        #expect(throws: JSONError(.tooLarge(limit: 100), at: 100)) {
            try JSONParser.parse(big, limits: JSONLimits(maxBytes: 100))
        }
        let escaped = "\"" + String(repeating: "\\u00e9\\n", count: 100_000) + "\""
        let decoded = try JSONParser.parse(escaped).string
        #expect(decoded == String(repeating: "é\n", count: 100_000))
    }

    static let numbers: [(String, Double)] = [
        ("0.1", 0.1), ("0.3", 0.3), ("-0.0", -0.0), ("1.7976931348623157e308", .greatestFiniteMagnitude),
        ("5e-324", .leastNonzeroMagnitude), ("2.2250738585072014e-308", .leastNormalMagnitude),
        ("9007199254740993", 9007199254740992), ("45.49097500", 45.490975), ("1e22", 1e22), ("1e23", 1e23),
        ("0.000001", 1e-6), ("123.456e-2", 1.23456), ("18446744073709551615", 18446744073709551615.0),
        ("3.141592653589793238462643383279", 3.141592653589793), ("100000000000000000000000000000e-29", 1),
    ]

    @Test(arguments: numbers)
    func parsesNumbersExactly(text: String, expected: Double) throws {
        let value = try #require(try JSONParser.parse(text).double)
        #expect(value == expected && value.sign == expected.sign)
    }

    @Test func numbersAgreeWithStandardLibrary() throws {
        var random = SplitMix64(seed: 7)
        for _ in 0..<20_000 {
            let mantissa = Int64(bitPattern: random.next()) % 10_000_000_000_000_000
            let exponent = Int(random.next() % 60) - 30
            let text = "\(mantissa)e\(exponent)"
            #expect(try JSONParser.parse(text).double == Double(text), "\(text)")
            let bits = Double(bitPattern: random.next() & 0x7FEF_FFFF_FFFF_FFFF)
            #expect(try JSONParser.parse(bits.description).double == bits)
        }
    }

    @Test func accessors() throws {
        let value = try JSONParser.parse(#"{"s":"x","n":4.5,"i":34.0,"b":true,"a":[1,null],"o":{}}"#)
        #expect(value["s"]?.string == "x")
        #expect(value["n"]?.double == 4.5)
        #expect(value["n"]?.int == nil)
        #expect(value["i"]?.int == 34)
        #expect(value["b"]?.bool == true)
        #expect(value["a"]?.array?.count == 2)
        #expect(value["a"]?[1]?.isNull == true)
        #expect(value["a"]?[2] == nil)
        #expect(value["o"]?.object == [:])
        #expect(value["missing"] == nil)
        #expect(value["s"]?["x"] == nil)
        #expect(JSONValue.number(1e300).int == nil)
        #expect(JSONValue.number(-9.223372036854775808e18).int == Int.min)
    }

    @Test func errorDescriptions() {
        #expect(JSONError(.unexpectedByte(0x7D), at: 12).description == "unexpected byte 0x7d at offset 12")
        #expect(JSONError(.tooDeep(limit: 64), at: 64).description == "nesting deeper than 64 at offset 64")
        #expect(JSONError(.controlCharacter(0x0A), at: 3).description == "unescaped control character 0x0a in string at offset 3")
    }
}

/// A small deterministic generator (SplitMix64), so that test runs repeat exactly.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
