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
        #expect(result.exitStatus == 64, "\(result)")
        #expect(result.stdoutText == "")
        #expect(result.stderrLines.count == 1)
        #expect(result.failureLine.hasPrefix("overland setup: invalid setup link: \(reason)"), "\(result.failureLine)")
        #expect(sandbox.fileBytes() == before)
    }

    @Test func missingLinkIsAUsageError() throws {
        let sandbox = try ConfigSandbox()
        let result = try sandbox.run(["setup"])
        #expect(result.exitStatus == 64, "\(result)")
        #expect(sandbox.fileBytes() == nil)
    }
}
