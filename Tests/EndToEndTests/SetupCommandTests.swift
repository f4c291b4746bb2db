import Foundation
import Testing

/// `overland setup LINK`, the way fleets provision devices (protocol section 8).
@Suite struct SetupCommandTests {
    static let token = "fleet-token-0123456789-abcdef-WXYZ"

    @Test func appliesALinkWithAnEncodedURL() throws {
        let sandbox = try ConfigSandbox()
        let link = "overland://setup?url=https%3A%2F%2Fgps.example%3A8443%2Fin%3Fkey%3Dabc%26ts%3D%25TS"
            + "&token=\(Self.token)&device_id=alice%2Fvan&unique_id=yes"
        let result = try sandbox.run(["setup", link])
        #expect(result.succeeded, "\(result)")
        #expect(result.stderrText == "")
        #expect(result.stdoutLines == [
            "endpoint: (none) -> https://gps.example:8443/in?key=<redacted>&ts=%TS",
            "token: (none) -> ••••",
            "device_id: (none) -> alice/van",
            "include_unique_id: false -> true",
        ])
        #expect(!result.stdoutText.contains(Self.token))
        #expect(try sandbox.configSucceeds("get", "endpoint") == ["https://gps.example:8443/in?key=abc&ts=%TS"])
        #expect(try sandbox.configSucceeds("get", "token") == [Self.token])
        #expect(try sandbox.configSucceeds("get", "include_unique_id") == ["true"])
        #expect(sandbox.mode(sandbox.settingsPath) == 0o600)

        let again = try sandbox.run(["setup", link])
        #expect(again.stdoutLines == ["nothing changed: the settings already match the link"])
    }

    @Test func keepsOtherSettingsAndClearsAnOldToken() throws {
        let sandbox = try ConfigSandbox()
        try sandbox.configSucceeds("set", "batch_size", "500")
        try sandbox.configSucceeds("set", "device_id", "van")
        try sandbox.configSucceeds("set", "token", Self.token)
        let result = try sandbox.run(["setup", "overland://setup?url=https://new.example/in&unique_id=no"])
        #expect(result.succeeded, "\(result)")
        #expect(result.stdoutLines == ["endpoint: (none) -> https://new.example/in", "token: •••• -> (none)"])
        #expect(try sandbox.configSucceeds("get", "batch_size") == ["500"])
        #expect(try sandbox.configSucceeds("get", "device_id") == ["van"])
    }

    /// A link with `token=` and nothing after it clears the token: said on stderr, not
    /// only as a change line; a token of whitespace only is refused (64), changing nothing.
    @Test func anEmptyTokenIsSaidAndABlankOneRefused() throws {
        let sandbox = try ConfigSandbox()
        try sandbox.configSucceeds("set", "token", Self.token)
        let blank = try sandbox.run(["setup", "overland://setup?url=https://new.example/in&token=%20%20%09"])
        #expect(blank.exitStatus == 64 && blank.stderrLines.count == 1, "\(blank)")
        #expect(blank.failureLine.contains("the token is only whitespace"), "\(blank)")
        #expect(try sandbox.configSucceeds("get", "token") == [Self.token])
        let empty = try sandbox.run(["setup", "overland://setup?url=https://new.example/in&token="])
        #expect(empty.succeeded, "\(empty)")
        #expect(empty.stdoutLines.contains("token: •••• -> (none)"), "\(empty)")
        #expect(empty.stderrLines.count == 1 && empty.failureLine.hasPrefix("overland setup: warning: its token= is empty: the token is cleared"),
                "\(empty.stderrText)")
        #expect(!empty.stderrText.contains(Self.token))
        // Nothing to clear: nothing said.
        let again = try sandbox.run(["setup", "overland://setup?url=https://other.example/in&token="])
        #expect(again.succeeded && again.stderrText.isEmpty, "\(again)")
    }

    /// A token of whitespace only is refused wherever a token is given.
    @Test func aBlankTokenIsRefusedEverywhere() throws {
        let sandbox = try ConfigSandbox()
        let set = try sandbox.config("set", "token", "   ")
        #expect(set.exitStatus == 64 && set.stderrLines.count == 1 && set.failureLine.contains("only whitespace"), "\(set)")
        let piped = try sandbox.run(["config", "set", "token", "--stdin"], stdinText: " \t \n")
        piped.expectExit(64)
        #expect(piped.stderrLines.count == 1, "\(piped)")
        try sandbox.writeSettings(#"{"endpoint": "http://127.0.0.1:9/in", "token": "  "}"#)
        let list = try sandbox.config("list")
        #expect(list.exitStatus == 78 && list.failureLine.contains("\"token\"") && list.failureLine.contains("only whitespace"), "\(list)")
        try sandbox.writeSettings(#"{"endpoint": "http://127.0.0.1:9/in"}"#)
        let environment = try sandbox.run(["status"], environment: ["OVERLAND_TOKEN": " "])
        #expect(environment.exitStatus == 78 && environment.failureLine.contains("OVERLAND_TOKEN"), "\(environment)")
        let destination = try sandbox.run(["destination", "add", "backup", "http://127.0.0.1:9/in", "--token-stdin"], stdinText: "   \n")
        destination.expectExit(64)
        #expect(destination.failureLine.contains("whitespace"), "\(destination)")
    }

    @Test func unknownParametersAreWarnings() throws {
        let sandbox = try ConfigSandbox()
        let result = try sandbox.run(["setup", "overland://setup?url=https://gps.example&colour=red"])
        #expect(result.succeeded, "\(result)")
        #expect(result.stderrLines == ["overland setup: warning: unknown parameter \"colour\" ignored"])
        #expect(result.stdoutLines == ["endpoint: (none) -> https://gps.example"])
    }

    @Test func linkFromStandardInput() throws {
        let sandbox = try ConfigSandbox()
        let result = try sandbox.run(["setup", "--stdin"], stdinText: "overland://setup?url=https://gps.example&token=\(Self.token)\n")
        #expect(result.succeeded, "\(result)")
        #expect(try sandbox.configSucceeds("get", "token") == [Self.token])
    }

    @Test(arguments: [
        ("https://setup?url=https://gps.example", "it must start with overland://setup?"),
        ("overland://setup?token=abc", "it has no url= parameter"),
        ("overland://setup?url=ftp%3A%2F%2Fgps.example", "url \"ftp://gps.example\" is not an http:// or https:// url"),
        ("overland://setup?url=https://gps.example&unique_id=maybe", "unique_id \"maybe\" is not yes or no"),
        ("overland://setup?url=https://gps.example&url=https://other.example", "parameter \"url\" appears twice"),
        ("overland://config?url=https://gps.example", "expected overland://setup?"),
    ])
    func badLinkIsAUsageError(_ link: String, _ reason: String) throws {
        let sandbox = try ConfigSandbox()
        try sandbox.configSucceeds("set", "batch_size", "500")
        let before = sandbox.fileBytes()
        let result = try sandbox.run(["setup", link])
        result.expectExit(64)
        #expect(result.stdoutText == "")
        #expect(result.stderrLines.count == 1)
        #expect(result.failureLine.hasPrefix("overland setup: invalid setup link: \(reason)"), "\(result.failureLine)")
        #expect(sandbox.fileBytes() == before)
    }

    @Test func missingLinkIsAUsageError() throws {
        let sandbox = try ConfigSandbox()
        let result = try sandbox.run(["setup"])
        result.expectExit(64)
        #expect(sandbox.fileBytes() == nil)
    }
}
