import Testing
import OverlandJSON

/// Edge cases of `JSONValidator.isValidObject`, each checked against a fixed verdict and
/// against `checkObject`, which shares `ByteScanner` with the parser.
@Suite struct JSONValidatorEdgeCaseTests {
    /// A record as overland-log writes it.
    static let record = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[11.5755985,48.1372008]},"properties":{"timestamp":"2024-02-27T21:30:00Z","altitude":523,"speed":0.06,"course":-1,"horizontal_accuracy":5,"vertical_accuracy":6,"speed_accuracy":-1,"course_accuracy":-1,"motion":["stationary"],"battery_state":"unknown","battery_level":0,"wifi":"","device_id":"vm"}}"#

    /// A document, and whether it is exactly one valid object.
    static let table: [(String, Bool)] = [
        // Escapes: the eight short ones and \u, nothing else.
        (#"{"a":"\" \\ \/ \b \f \n \r \t"}"#, true),
        (#"{"a":"\a"}"#, false),
        (#"{"a":"\x41"}"#, false),
        (#"{"a":"\0"}"#, false),
        (#"{"a":"\'"}"#, false),
        (#"{"a":"\U0041"}"#, false),
        (#"{"a":"\ "}"#, false),
        (#"{"a":"\"}"#, false),
        (#"{"a":"x\"#, false),
        (#"{"\n":1}"#, true),
        (#"{"\q":1}"#, false),
        // \u: four hex digits of either case.
        (#"{"a":"\u0041\u00e9\u20AC\uaBcD\u0000"}"#, true),
        (#"{"a":"\u004"}"#, false),
        (#"{"a":"\u12G4"}"#, false),
        (#"{"a":"\u 041"}"#, false),
        (#"{"a":"\u"}"#, false),
        // Surrogates: a high one must be followed at once by an escaped low one.
        (#"{"a":"\ud83d\ude00"}"#, true),
        (#"{"a":"\uD83D\uDE00"}"#, true),
        (#"{"a":"\ud800\udc00\udbff\udfff"}"#, true),
        (#"{"a":"\ud83d"}"#, false),
        (#"{"a":"\ude00"}"#, false),
        (#"{"a":"\ude00\ud83d"}"#, false),
        (#"{"a":"\ud83d\ud83d"}"#, false),
        (#"{"a":"\ud83d\u0041"}"#, false),
        (#"{"a":"\ud83dx\ude00"}"#, false),
        (#"{"a":"\ud83d\n"}"#, false),
        (#"{"a":"\ud83d\"}"#, false),
        (#"{"a":"\ud83d\ude0"}"#, false),
        (#"{"\udfff":1}"#, false),
        // Numbers: RFC 8259 exactly, any magnitude.
        (#"{"a":[0,-0,1,-1,10,1e5,1E5,1e+5,1E+5,1e-5,1E-05,0.5,-0.5,0e0,-0.0e-0,1.5E+10,123456789]}"#, true),
        (#"{"a":1e400}"#, true),
        (#"{"a":-123456789012345678901234567890.123456789e-999}"#, true),
        (#"{"a":01}"#, false),
        (#"{"a":-01}"#, false),
        (#"{"a":00}"#, false),
        (#"{"a":1.}"#, false),
        (#"{"a":1.e5}"#, false),
        (#"{"a":.5}"#, false),
        (#"{"a":-.5}"#, false),
        (#"{"a":-}"#, false),
        (#"{"a":+1}"#, false),
        (#"{"a":--1}"#, false),
        (#"{"a":1e}"#, false),
        (#"{"a":1e+}"#, false),
        (#"{"a":1e-}"#, false),
        (#"{"a":1e5.5}"#, false),
        (#"{"a":1.5.3}"#, false),
        (#"{"a":0x1}"#, false),
        (#"{"a":1_000}"#, false),
        (#"{"a":NaN}"#, false),
        (#"{"a":Infinity}"#, false),
        (#"{"a":-Infinity}"#, false),
        // Literals.
        (#"{"a":[true,false,null]}"#, true),
        (#"{"a":tru}"#, false),
        (#"{"a":fals}"#, false),
        (#"{"a":nul}"#, false),
        (#"{"a":True}"#, false),
        (#"{"a":NULL}"#, false),
        (#"{"a":truex}"#, false),
        (#"{"a":nulll}"#, false),
        (#"{"a":true"#, false),
        // Whitespace: space, tab, line feed and carriage return only, between any tokens.
        ("{}", true),
        (" \t\r\n{ \t\r\n\"a\" \t\r\n: \t\r\n[ \t\r\n1 \t\r\n, \t\r\n{ } \t\r\n] \t\r\n} \t\r\n", true),
        ("\u{0C}{}", false),
        ("{}\u{0B}", false),
        ("{\u{0C}}", false),
        ("{\"a\":\u{A0}1}", false),
        ("{\"a\":\u{2003}1}", false),
        ("\u{FEFF}{}", false),
        // Structure.
        ("", false),
        (" ", false),
        ("{", false),
        ("}", false),
        ("[]", false),
        ("\"a\"", false),
        ("1", false),
        ("null", false),
        (#"{"a":1,}"#, false),
        ("{,}", false),
        (#"{"a"}"#, false),
        (#"{"a":}"#, false),
        (#"{"a" 1}"#, false),
        (#"{"a"::1}"#, false),
        (#"{1:2}"#, false),
        (#"{a:1}"#, false),
        (#"{'a':1}"#, false),
        (#"{"a":1 "b":2}"#, false),
        (#"{"a":1;"b":2}"#, false),
        (#"{"a":[1,2,]}"#, false),
        (#"{"a":[,1]}"#, false),
        (#"{"a":[1 2]}"#, false),
        (#"{"a":[1}"#, false),
        (#"{"a":{]}"#, false),
        (#"{"a":[}"#, false),
        (#"{"a":{"b":1}"#, false),
        (#"{"a":{}"#, false),
        (#"{"a":[]"#, false),
        (#"{"a":[],"b":{},"c":[[],{}],"d":[{}]}"#, true),
        // Duplicate keys are not the validator's business; the parser keeps the last.
        (#"{"a":1,"a":2}"#, true),
        // Trailing and leading data.
        ("{}x", false),
        ("{} x", false),
        ("{}}", false),
        ("{}{}", false),
        ("{}\n{}", false),
        ("{},", false),
        ("{}\u{0}", false),
        ("x{}", false),
        ("\u{0}{}", false),
        // Strings: DEL and everything above it that is well-formed UTF-8 may appear raw.
        ("{\"a\":\"\u{7F}\"}", true),
        ("{\"é😀\":\"café \u{FFFF} \u{10FFFF} \u{E000}\"}", true),
    ]

    @Test(arguments: table)
    func verdict(document: String, valid: Bool) {
        Self.expectVerdict(Array(document.utf8), valid)
    }

    /// Every control character is rejected raw in a key or value, and accepted escaped.
    @Test func controlCharacters() {
        for byte in UInt8(0)..<0x20 {
            Self.expectVerdict(Array(#"{"a":"x"#.utf8) + [byte] + Array(#""}"#.utf8), false)
            Self.expectVerdict(Array(#"{"x"#.utf8) + [byte] + Array(#"":1}"#.utf8), false)
            let escaped = "\\u00" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
            Self.expectVerdict(Array("{\"a\":\"\(escaped)\"}".utf8), true)
        }
    }

    /// Raw UTF-8 in strings: Unicode table 3-7, nothing overlong, no surrogates, nothing
    /// above U+10FFFF, no cut-short sequences; and none at all outside strings.
    @Test(arguments: [
        ([0xC3, 0xA9], true),
        ([0xC2, 0x80], true),
        ([0xDF, 0xBF], true),
        ([0xE0, 0xA0, 0x80], true),
        ([0xE1, 0x80, 0x80], true),
        ([0xEC, 0xBF, 0xBF], true),
        ([0xED, 0x9F, 0xBF], true),
        ([0xEE, 0x80, 0x80], true),
        ([0xEF, 0xBF, 0xBF], true),
        ([0xF0, 0x90, 0x80, 0x80], true),
        ([0xF3, 0xBF, 0xBF, 0xBF], true),
        ([0xF4, 0x8F, 0xBF, 0xBF], true),
        ([0x80], false),
        ([0xBF], false),
        ([0xC0, 0x80], false),
        ([0xC1, 0xBF], false),
        ([0xC2], false),
        ([0xC2, 0x41], false),
        ([0xC2, 0xC0], false),
        ([0xE0, 0x80, 0x80], false),
        ([0xE0, 0x9F, 0xBF], false),
        ([0xE1, 0x80], false),
        ([0xE1, 0x80, 0x41], false),
        ([0xE1, 0x41, 0x80], false),
        ([0xED, 0xA0, 0x80], false),
        ([0xED, 0xBF, 0xBF], false),
        ([0xF0, 0x80, 0x80, 0x80], false),
        ([0xF0, 0x8F, 0xBF, 0xBF], false),
        ([0xF0, 0x90, 0x80], false),
        ([0xF0, 0x90, 0x80, 0x41], false),
        ([0xF4, 0x90, 0x80, 0x80], false),
        ([0xF5, 0x80, 0x80, 0x80], false),
        ([0xF8, 0x88, 0x80, 0x80, 0x80], false),
        ([0xFE], false),
        ([0xFF], false),
    ] as [([UInt8], Bool)])
    func utf8(sequence: [UInt8], valid: Bool) {
        // Alone, at the start, in the middle and at the end of a key and of a value,
        // where eight-byte reads see it at every offset.
        for padding in 0..<9 {
            let filler = [UInt8](repeating: UInt8(ascii: "x"), count: padding)
            let inside = filler + sequence + filler
            Self.expectVerdict(Array(#"{"a":""#.utf8) + inside + Array(#""}"#.utf8), valid)
            Self.expectVerdict(Array(#"{""#.utf8) + inside + Array(#"":1}"#.utf8), valid)
            Self.expectVerdict(Array(#"{"a":""#.utf8) + filler + sequence + Array(#""}"#.utf8), valid)
        }
        Self.expectVerdict(Array(#"{"a":"#.utf8) + sequence + Array("}".utf8), false)
        Self.expectVerdict(Array("{}".utf8) + sequence, false)
    }

    /// A quote, backslash or control character at every offset of a long string, where
    /// eight-byte reads find it in every lane.
    @Test func stopBytesAtEveryOffset() {
        for length in 0..<40 {
            for offset in 0...length {
                var value = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                value.insert(contentsOf: Array(#"\n"#.utf8), at: offset)
                Self.expectVerdict(Array(#"{"k":""#.utf8) + value + Array(#""}"#.utf8), true)
                value = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                value.insert(0x1F, at: offset)
                Self.expectVerdict(Array(#"{"k":""#.utf8) + value + Array(#""}"#.utf8), false)
                value = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                value.insert(UInt8(ascii: "\""), at: offset)
                Self.expectVerdict(Array(#"{"k":""#.utf8) + value + Array(#""}"#.utf8), false)
            }
        }
    }

    /// The top-level object is depth 1; an empty container counts as a level too.
    @Test func depthLimits() {
        Self.expectVerdict(Array("{}".utf8), true, maxDepth: 1)
        Self.expectVerdict(Array("{}".utf8), false, maxDepth: 0)
        Self.expectVerdict(Array("{}".utf8), false, maxDepth: -1)
        Self.expectVerdict(Array(#"{"a":{}}"#.utf8), false, maxDepth: 1)
        Self.expectVerdict(Array(#"{"a":[]}"#.utf8), false, maxDepth: 1)
        Self.expectVerdict(Array(#"{"a":[]}"#.utf8), true, maxDepth: 2)
        Self.expectVerdict(Array(#"{"a":1,"b":[2]}"#.utf8), true, maxDepth: 2)
        for depth in 1...130 {
            let open = "{\"a\":" + String(repeating: "[", count: depth - 1)
            let close = String(repeating: "]", count: depth - 1) + "}"
            Self.expectVerdict(Array((open + "0" + close).utf8), true, maxDepth: depth)
            Self.expectVerdict(Array((open + "0" + close).utf8), false, maxDepth: depth - 1)
            if depth > 1 {
                Self.expectVerdict(Array((open + close).utf8), true, maxDepth: depth)
                Self.expectVerdict(Array((open + close).utf8), false, maxDepth: depth - 1)
            }
            let objects = Array((String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)).utf8)
            Self.expectVerdict(objects, true, maxDepth: depth)
            Self.expectVerdict(objects, false, maxDepth: depth - 1)
        }
    }

    /// Every prefix of a valid document that stops before its last "}" is rejected,
    /// and so is the document with any one of its bytes before that brace removed,
    /// unless removing it leaves valid JSON (checkObject decides those).
    @Test func truncatedAtEveryByte() {
        for document in JSONValidatorTests.corpus + [Self.record] {
            let bytes = Array(document.utf8)
            let last = bytes.lastIndex(of: UInt8(ascii: "}"))!
            for end in 0...last {
                Self.expectVerdict(Array(bytes[..<end]), false)
            }
            for end in (last + 1)...bytes.count {
                Self.expectVerdict(Array(bytes[..<end]), true)
            }
            for removed in bytes.indices {
                var shorter = bytes
                shorter.remove(at: removed)
                Self.expectAgreement(shorter)
            }
        }
    }

    /// Mutations of real documents (fixed seed): the fast walk and `checkObject` must agree.
    @Test func agreesWithCheckObject() {
        var random = SplitMix64(seed: 0x5EED_0B1E_C700)
        let corpus = (JSONValidatorTests.corpus + [Self.record]).map { Array($0.utf8) }
        let interesting: [UInt8] = Array(#"{}[]",:\/0123456789-+.eEtrufalsnu "#.utf8)
            + [0x00, 0x09, 0x0A, 0x0D, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]
        let snippets = [#"\u"#, #"\ud83d"#, #"\ude00"#, #"\ud83d\ude00"#, #"\\"#, #"\""#, "é", "😀", "-0", "1e5", "[]", "{}", "true", " "]
            .map { Array($0.utf8) }
        var accepted = 0
        for iteration in 0..<40_000 {
            var bytes = corpus[Int(random.next() % UInt64(corpus.count))]
            for _ in 0..<(1 + Int(random.next() % 4)) where !bytes.isEmpty {
                let position = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 7 {
                case 0: bytes[position] = interesting[Int(random.next() % UInt64(interesting.count))]
                case 1: bytes[position] ^= UInt8(1 << (random.next() % 8))
                case 2: bytes.remove(at: position)
                case 3: bytes.insert(interesting[Int(random.next() % UInt64(interesting.count))], at: position)
                case 4: bytes.removeSubrange(position...)
                case 5: bytes.insert(contentsOf: snippets[Int(random.next() % UInt64(snippets.count))], at: position)
                default:
                    let end = min(bytes.count, position + 1 + Int(random.next() % 16))
                    bytes.insert(contentsOf: bytes[position..<end], at: position)
                }
            }
            let maxDepth = random.next() % 8 == 0 ? Int(random.next() % 5) : 64
            if Self.expectAgreement(bytes, maxDepth: maxDepth, "iteration \(iteration)") { accepted += 1 }
        }
        #expect(accepted > 2_000 && accepted < 38_000)
    }

    /// Checks `bytes` against `valid`, through both entry points and `checkObject`, in an
    /// allocation of exactly their size.
    static func expectVerdict(_ bytes: [UInt8], _ valid: Bool, maxDepth: Int = 64, sourceLocation: SourceLocation = #_sourceLocation) {
        let verdict = expectAgreement(bytes, maxDepth: maxDepth, sourceLocation: sourceLocation)
        #expect(verdict == valid, "\(String(decoding: bytes, as: UTF8.self).debugDescription)", sourceLocation: sourceLocation)
    }

    /// The fast walk's verdict on `bytes`, after checking that `checkObject` and the
    /// collection entry point agree with it.
    @discardableResult
    static func expectAgreement(_ bytes: [UInt8], maxDepth: Int = 64, _ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let exact = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        defer { exact.deallocate() }
        exact.copyBytes(from: bytes)
        let buffer = UnsafeRawBufferPointer(exact)
        let fast = JSONValidator.isValidObject(buffer, maxDepth: maxDepth)
        let checked: Bool
        do {
            try JSONValidator.checkObject(buffer, maxDepth: maxDepth)
            checked = true
        } catch {
            checked = false
        }
        #expect(fast == checked, "\(comment) \(String(decoding: bytes, as: UTF8.self).debugDescription)", sourceLocation: sourceLocation)
        #expect(JSONValidator.isValidObject(bytes[...], maxDepth: maxDepth) == fast, sourceLocation: sourceLocation)
        return fast
    }
}
