import Testing
@testable import OverlandSettings

@Suite("Locating keys")
struct KeyLocatorTests {
    @Test func keysAfterTrickyStringsKeepTheirLines() {
        let text = """
            {"a": "x, {\\"b\\": [1, 2]}",
             "list": [{"k": 1}, "y"],
             "nested": {"inner": {"deep": true},
                        "after": 1},
             "esc\\u0061ped": 2
            }
            """
        let locator = KeyLocator(Array(text.utf8))
        #expect(locator.line(of: ["a"]) == 1)
        #expect(locator.line(of: ["list"]) == 2)
        #expect(locator.line(of: ["list", "", "k"]) == 2)
        #expect(locator.line(of: ["nested", "inner", "deep"]) == 3)
        #expect(locator.line(of: ["nested", "after"]) == 4)
        #expect(locator.line(of: ["escaped"]) == 5)
        #expect(locator.offsets[["b"]] == nil)
        #expect(locator.duplicates.isEmpty)
    }

    @Test func escapedKeyInAFileIsFoundForItsError() throws {
        let text = "{\n\"main\": {\n\"batch\\u005fsize\": 7\n}}"
        let error = try #require(settingsError { _ = try SettingsFile.decode(Array(text.utf8), path: "s.json") })
        #expect(error == .invalidValue(
            key: "main.batch_size", value: "7", allowed: "50, 100, 200, 500, 1000",
            location: SettingsLocation(path: "s.json", line: 3)))
    }

    @Test func carriageReturnsDoNotShiftLines() throws {
        let text = "{\r\n\"send_interval\": \"5m\",\r\n\"trip_mode\": \"yacht\"\r\n}\r\n"
        let error = try #require(settingsError { _ = try SettingsFile.decode(Array(text.utf8), path: "s.json") })
        guard case .invalidValue(_, _, _, let location) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(location?.line == 3)
    }

    @Test func positions() {
        let locator = KeyLocator(Array("ab\ncd\n\nef".utf8))
        #expect(locator.position(atOffset: 0) == (1, 1))
        #expect(locator.position(atOffset: 4) == (2, 2))
        #expect(locator.position(atOffset: 6) == (3, 1))
        #expect(locator.position(atOffset: 8) == (4, 2))
    }
}

@Suite("Locating keys in hostile files")
struct KeyLocatorDepthTests {
    @Test("a file nested a million deep is walked with a bounded stack and no key past the limit kept")
    func millionDeep() {
        let depth = 1_000_000
        let text = String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
        let locator = KeyLocator(Array(text.utf8), maxDepth: 16)
        #expect(locator.offsets.count == 16)
        #expect(locator.offsets.keys.allSatisfy { $0.count <= 16 })
        #expect(locator.duplicates.isEmpty)
    }

    @Test("keys after a deep excursion are found again at their own depth")
    func afterDeepExcursion() {
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        let text = "{\"x\": \(deep),\n \"y\": {\"z\": 1}}"
        let locator = KeyLocator(Array(text.utf8), maxDepth: 4)
        #expect(locator.line(of: ["y"]) == 2)
        #expect(locator.offsets[["y", "z"]] != nil)
    }

    @Test("decoding a deep file fails with the nesting limit at the byte where it is passed")
    func decodeDeep() {
        let text = String(repeating: #"{"a":"#, count: 100_000) + "1" + String(repeating: "}", count: 100_000)
        #expect {
            _ = try SettingsFile.decode(Array(text.utf8), path: "/s.json")
        } throws: { error in
            "\(error)".contains("nesting deeper than 16")
        }
    }
}
