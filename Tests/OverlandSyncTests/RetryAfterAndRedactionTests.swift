import OverlandSync
import Testing

@Suite("Retry-After and the token's redaction")
struct RetryAfterAndRedactionTests {
    static let now: Int64 = 784_111_777  // Sun, 06 Nov 1994 08:49:37 GMT

    @Test("delay-seconds and HTTP-dates (IMF-fixdate, RFC 850); garbage is nil; the past is 0", arguments: [
        ("3600", Int64?(3600)), (" 120 ", 120), ("0", 0), ("Sun, 06 Nov 1994 09:49:37 GMT", 3600),
        ("Sunday, 06-Nov-94 10:49:37 GMT", 7200), ("Sat, 05 Nov 1994 08:49:37 GMT", 0), ("-1", nil), ("1.5", nil),
        ("soon", nil), ("", nil), ("Sun Nov  6 08:49:37 1994", nil), ("Mon, 32 Foo 1994 08:49:37 GMT", nil),
        ("999999999999999999999999", nil),
    ])
    func parse(value: String, expected: Int64?) {
        #expect(RetryAfter.seconds(value, now: Self.now) == expected)
    }

    @Test("the backoff takes the longer of its own delay and the server's ask, capped at 6 hours")
    func capped() {
        let backoff = SyncBackoff()
        #expect(backoff.retryAfterCap == 21_600)
        #expect(backoff.delay(afterFailures: 1, random: 0.5, retryAfter: 3600) == 3600)
        #expect(backoff.delay(afterFailures: 1, random: 0.5, retryAfter: 10) == 60)
        #expect(backoff.delay(afterFailures: 1, random: 0.5, retryAfter: 999_999) == 21_600)
        #expect(backoff.delay(afterFailures: 1, random: 0.5, retryAfter: nil) == 60)
        #expect(backoff.longestWait >= 21_600)
    }

    @Test("any run of 4 or more of the token's characters is hidden, wherever it is", arguments: [
        String(repeating: "x", count: 63) + "tok-Zq81fW3mYp0vXc7R", "…Yp0vXc7R…", "tok-Zq81", "a tok-Zq8 b q81f c",
        "Zq81fW3mYp0vXc7R Zq81",
    ])
    func redaction(text: String) {
        let token = "tok-Zq81fW3mYp0vXc7R"
        let hidden = SecretRedaction.hiding([token], in: text)
        let characters = Array(token)
        for start in 0...(characters.count - 4) {
            #expect(!hidden.contains(String(characters[start..<(start + 4)])), "\(hidden)")
        }
        #expect(hidden.contains("<redacted>"))
    }

    @Test("text with no run of the token is left as it is; a token under 4 characters hides nothing")
    func untouched() {
        #expect(SecretRedaction.hiding(["tok-Zq81fW3mYp0vXc7R"], in: "server answered 500") == "server answered 500")
        #expect(SecretRedaction.hiding(["abc"], in: "abc abc") == "abc abc")
    }
}
