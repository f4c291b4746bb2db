import OverlandJSON
import Testing

@Suite("PrintableText: the one rule for data shown to people")
struct PrintableTextTests {
    @Test("control characters, DEL, C1 and bidirectional overrides are unsafe; tab and line feed only where allowed")
    func unsafeScalars() {
        for value: UInt32 in [0x00, 0x07, 0x0D, 0x1B, 0x7F, 0x85, 0x9B, 0x9F, 0x200E, 0x200F, 0x202A, 0x202E, 0x2066, 0x2069, 0x061C] {
            #expect(PrintableText.isUnsafe(Unicode.Scalar(value)!), "U+\(String(value, radix: 16))")
        }
        for text in ["a", "é", "€", " ", "😀", "\u{A0}"] { #expect(PrintableText.isPrintable(text)) }
        #expect(PrintableText.isPrintable("a\tb\nc"))
        #expect(!PrintableText.isPrintable("a\nb", allowLineBreaks: false))
    }

    @Test func sanitised() {
        #expect(PrintableText.sanitised("\u{1B}[2Jred\u{9B}31m\u{202E}x") == "?[2Jred?31m?x")
        #expect(PrintableText.sanitised("a\u{1B}b\nc", replacement: "") == "ab\nc")
        #expect(PrintableText.sanitised("a\r\nb", replacement: "", allowLineBreaks: false) == "ab")
        let clean = "nothing to do"
        #expect(PrintableText.sanitised(clean) == clean)
    }
}
