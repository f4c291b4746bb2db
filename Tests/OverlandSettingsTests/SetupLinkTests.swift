import Testing
@testable import OverlandSettings

@Suite("Setup links")
struct SetupLinkTests {
    @Test func fullLinkWithAnEncodedQueryString() throws {
        let link = try SetupLink(parsing:
            "overland://setup?url=https%3A%2F%2Fexample.com%2Fapi%3Fkey%3Dabc%26ts%3D%25TS&token=a+b%2Bc&device_id=alice%2Fphone&unique_id=yes")
        #expect(link.url == "https://example.com/api?key=abc&ts=%TS")
        #expect(link.token == "a+b+c")
        #expect(link.deviceID == "alice/phone")
        #expect(link.includeUniqueID == true)
        #expect(link.warnings == [])

        var settings = Settings()
        settings.token = "old-token-of-another-server"
        let changes = link.apply(to: &settings)
        #expect(settings.endpoint == "https://example.com/api?key=abc&ts=%TS")
        #expect(settings.token == "a+b+c")
        #expect(settings.deviceID == "alice/phone")
        #expect(settings.includeUniqueID)
        #expect(changes.map(\.key) == ["endpoint", "token", "device_id", "include_unique_id"])
    }

    @Test func minimalLink() throws {
        let link = try SetupLink(parsing: "  OVERLAND://Setup?url=http://10.0.0.2:3000/\n")
        #expect(link.url == "http://10.0.0.2:3000/")
        #expect(link.token == nil && link.deviceID == nil && link.includeUniqueID == nil)
        var settings = Settings()
        settings.token = "old-token"
        settings.deviceID = "van"
        settings.includeUniqueID = true
        link.apply(to: &settings)
        // The old token must not travel to the new server; the device keeps its id.
        #expect(settings.token == nil)
        #expect(settings.deviceID == "van")
        #expect(settings.includeUniqueID)
    }

    @Test func unencodedURLWithAnAmpersandIsCutAndReported() throws {
        let link = try SetupLink(parsing: "overland://setup?url=https://x.example/api?a=1&b=2&token=t")
        #expect(link.url == "https://x.example/api?a=1")
        #expect(link.warnings == [#"setup link: unknown parameter "b" ignored"#])
        #expect(link.token == "t")
    }

    @Test func uniqueIDNo() throws {
        var settings = Settings()
        settings.includeUniqueID = true
        try SetupLink(parsing: "overland://setup?url=https://x.example&unique_id=no").apply(to: &settings)
        #expect(!settings.includeUniqueID)
    }

    @Test(arguments: [
        ("https://setup?url=https://x.example", "it must start with overland://setup?"),
        ("overland://config?url=https://x.example", "expected overland://setup?..., not overland://config"),
        ("overland://setup", "it has no url= parameter"),
        ("overland://setup?token=abc", "it has no url= parameter"),
        ("overland://setup?url=", "it has no url= parameter"),
        ("overland://setup?url=ftp%3A%2F%2Fx.example", #"url "ftp://x.example" is not an http:// or https:// url, its port (if any) 1 to 65535"#),
        ("overland://setup?url=https%3A%2F%2F", #"url "https://" is not an http:// or https:// url, its port (if any) 1 to 65535"#),
        ("overland://setup?url=https%3A%2F%2Fx.example%3A70000%2Fin", #"url "https://x.example:70000/in" is not an http:// or https:// url, its port (if any) 1 to 65535"#),
        ("overland://setup?url=http://x.example:99999999999999999999/", #"url "http://x.example:99999999999999999999/" is not an http:// or https:// url, its port (if any) 1 to 65535"#),
        ("overland://setup?url=http://[::1]:65536/", #"url "http://[::1]:65536/" is not an http:// or https:// url, its port (if any) 1 to 65535"#),
        ("overland://setup?url=https://x.example&device_id=", #"device id "" is not 1 to 50 printable characters, such as "van" or "alice/phone""#),
        ("overland://setup?url=https://x.example&device_id=%20%20", #"device id "  " is not 1 to 50 printable characters, such as "van" or "alice/phone""#),
        ("overland://setup?url=https://x.example&device_id=a%0Ab", #"device id "a\nb" is not 1 to 50 printable characters, such as "van" or "alice/phone""#),
        ("overland://setup?url=https://x.example&device_id=" + String(repeating: "d", count: 51),
         #"device id ""# + String(repeating: "d", count: 51) + #"" is not 1 to 50 printable characters, such as "van" or "alice/phone""#),
        ("overland://setup?url=https://x.example&token=a%0D%0AX-Evil:%201", "the token holds a control character"),
        ("overland://setup?url=https://x.example&unique_id=maybe", #"unique_id "maybe" is not yes or no"#),
        ("overland://setup?url=https://x.example&url=https://y.example", #"parameter "url" appears twice"#),
        ("overland://setup?url=https://x.example/%zz", #"parameter "url" has a '%' not followed by two hex digits"#),
        ("overland://setup?url=https://x.example/%4", #"parameter "url" has a '%' not followed by two hex digits"#),
        ("overland://setup?url=https://x.example/%ff", #"parameter "url" does not decode to utf-8 text"#),
        ("overland://setup?url=https://x.example/#frag", "it has a fragment ('#'); percent-encode '#' inside the url as %23"),
        ("overland://setup?url=https://x.example/a b", "it contains a space or control character (percent-encode it as %20)"),
    ])
    func badLinksAreRefused(link: String, reason: String) throws {
        let error = try #require(settingsError { _ = try SetupLink(parsing: link) })
        #expect(error == .invalidSetupLink(reason: reason))
        #expect(error.description == "invalid setup link: " + reason)
        #expect(error.category == .configuration)
    }

    @Test func deviceIDOfExactly50CharactersIsAccepted() throws {
        let id = String(repeating: "é", count: 50)
        let link = try SetupLink(parsing: "overland://setup?url=https://x.example&device_id=" + String(repeating: "%C3%A9", count: 50))
        #expect(link.deviceID == id)
    }
}
