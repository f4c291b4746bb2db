import OverlandJSON
import Testing

/// The one rule for every URL shown (issue 21): secrets in the user information, the query,
/// the fragment and a webhook's path are redacted; scheme, host, port and the path are kept.
@Suite struct RedactedURLTests {
    @Test(arguments: [
        ("https://user:secret@example.org/api/overland?token=abc#x", "https://user:<redacted>@example.org/api/overland?token=<redacted>#<redacted>"),
        ("https://T0k3n@example.org/", "https://<redacted>@example.org/"),
        ("http://127.0.0.1:9/overland", "http://127.0.0.1:9/overland"),
        ("https://e.example/in?api_key=0123&device=van&flag", "https://e.example/in?api_key=<redacted>&device=<redacted>&<redacted>"),
        ("https://e.example/in?empty=&", "https://e.example/in?empty=&"),
        ("https://e.example/in?ts=%TS&lat=%LAT&key=%2Fk3y&x=%AB1", "https://e.example/in?ts=%TS&lat=%LAT&key=<redacted>&x=<redacted>"),
        ("http://ha.local:8123/api/webhook/my-secret-hook", "http://ha.local:8123/api/webhook/<redacted>"),
        ("http://ha.local:8123/api/WEBHOOK/abc/def", "http://ha.local:8123/api/WEBHOOK/<redacted>/<redacted>"),
        ("https://x.example/hooks/a", "https://x.example/hooks/<redacted>"),
        ("https://x.example/in/4f9c2a7b1e3d5f60a8b9/points", "https://x.example/in/<redacted>/points"),
        ("https://x.example/api/v1/locations", "https://x.example/api/v1/locations"),
        ("https://[::1]:8443/x?t=1", "https://[::1]:8443/x?t=<redacted>"),
        ("mqtt://user:pw@broker:1883", "mqtt://user:<redacted>@broker:1883"),
        ("not a url?token=abc", "not a url?token=<redacted>"),
        ("https://e.example/\u{1B}[2J", "https://e.example/?[2J"),
    ])
    func shown(url: String, expected: String) {
        #expect(RedactedURL.shown(url) == expected)
    }

    @Test func aLongURLIsCut() {
        let shown = RedactedURL.shown("https://e.example/" + String(repeating: "a/", count: 200))
        #expect(shown.count == 200 && shown.hasSuffix("…"))
    }

    @Test func secretsAreListedAsWrittenAndDecoded() {
        #expect(RedactedURL.secrets(in: "https://u:p%40ss@e.example/api/webhook/id1?token=a%2Bb+c#f")
            == ["p%40ss", "p@ss", "id1", "a%2Bb+c", "a+b c", "f"])
        #expect(RedactedURL.secrets(in: "https://e.example/api") == [])
    }

    @Test func noSecretSurvivesInAnyPart() {
        // Structure-aware: every part of a URL holding the secret, the secret never shown.
        let secret = "S3cr3tT0k3nValue"
        let urls = [
            "https://\(secret)@h.example/", "https://u:\(secret)@h.example/", "https://h.example/?\(secret)",
            "https://h.example/?token=\(secret)", "https://h.example/?a=1&api_key=\(secret)&b=2", "https://h.example/#\(secret)",
            "https://h.example/api/webhook/\(secret)", "https://h.example/x/\(secret)/y", "https://h.example/p?q=1#a=\(secret)",
        ]
        for url in urls {
            let shown = RedactedURL.shown(url)
            #expect(!shown.contains("S3cr") && !shown.contains("Value"), "\(url) -> \(shown)")
        }
    }
}
