import Testing
@testable import OverlandSettings

@Suite("The environment overlay")
struct EnvironmentTests {
    @Test func variablesOverrideTheFile() throws {
        var settings = Settings()
        settings.endpoint = "https://file.example"
        settings.token = "file-token"
        settings.deviceID = "file"
        settings.journal = "/file/journal"
        try applyEnvironment([
            "OVERLAND_URL": "https://env.example/api",
            "OVERLAND_TOKEN": "env-token",
            "OVERLAND_DEVICE_ID": "env",
            "OVERLAND_JOURNAL": "journal",
            "OVERLAND_OTHER": "ignored",
        ], to: &settings)
        #expect(settings.endpoint == "https://env.example/api")
        #expect(settings.token == "env-token")
        #expect(settings.deviceID == "env")
        #expect(settings.journal == "journal")
    }

    @Test func unsetAndEmptyVariablesLeaveTheFile() throws {
        var settings = Settings()
        settings.endpoint = "https://file.example"
        settings.token = "file-token"
        let before = settings
        try applyEnvironment(["OVERLAND_URL": "", "OVERLAND_TOKEN": ""], to: &settings)
        try applyEnvironment([:], to: &settings)
        #expect(settings == before)
    }

    @Test func badValuesNameTheVariable() throws {
        var settings = Settings()
        let error = try #require(settingsError { try applyEnvironment(["OVERLAND_URL": "example.com"], to: &settings) })
        #expect(error.description == #"invalid value "example.com" for "OVERLAND_URL" (allowed: an http:// or https:// url, its port (if any) 1 to 65535)"#)
        let id = try #require(settingsError {
            try applyEnvironment(["OVERLAND_DEVICE_ID": String(repeating: "x", count: 60)], to: &settings)
        })
        guard case .invalidValue(let key, _, _, _) = id else {
            Issue.record("unexpected \(id)")
            return
        }
        #expect(key == "OVERLAND_DEVICE_ID")
    }
}
