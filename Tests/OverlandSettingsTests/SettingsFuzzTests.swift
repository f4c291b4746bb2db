import TestSupport
import Foundation
@testable import OverlandJSON
@testable import OverlandSettings
import Testing

/// Structure-aware settings files: every key of the project, at its place in the file,
/// with hostile values (numbers at and past every limit, strings with control characters,
/// escapes, lone surrogates and 64 KiB of text, wrong types, nesting from 1 to 200,000,
/// repeated keys, byte-order marks and size near the 1 MiB limit). Seeded.
struct SettingsGenerator {
    var random: SplitMix

    init(seed: UInt64) { random = SplitMix(state: seed) }

    mutating func pick<T>(_ items: [T]) -> T { items.randomElement(using: &random)! }
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    static func nested(_ depth: Int, open: String, close: String, inner: String = "1") -> String {
        String(repeating: open, count: depth) + inner + String(repeating: close, count: depth)
    }

    mutating func value() -> String {
        switch Int.random(in: 0..<16, using: &random) {
        case 0: return pick(["0", "-0", "1", "-1", "9007199254740992", "9007199254740993", "18446744073709551616", "1e308", "1e309",
                             "-1e309", "5e-324", "0.1", "3600", "86400", "1000", "50", "2147483648", "1E400", "-9223372036854775809"])
        case 1: return pick(["true", "false", "null", "{}", "[]", "\"\"", "\" \""])
        case 2: return "\"" + pick(["5m", "1m", "off", "all", "latest", "owntracks", "significant", "60s", "1000", "50m",
                                    "https://example.com/in", "http://h:70000/", "http://[::1]:65536/", "van", "wifi"]) + "\""
        case 3: return "\"" + pick(["\\u0000", "\\u001b[2J", "\\n", "\\r\\n", "\\ud800", "\\udfff\\ud800", "\\u202e", "\\u009b",
                                    "\\\\", "\\/", "\\t"]) + "\""
        case 4: return "\"" + String(repeating: pick(["a", "é", "\\u0041", "%", "€"]), count: pick([64, 1000, 16_384, 65_536, 70_000])) + "\""
        case 5: return Self.nested(pick([2, 15, 16, 17, 64, 1000, 200_000]), open: pick(["[", #"{"a":"#, #"{"main":"#]),
                                   close: "", inner: "1") + String(repeating: "?", count: 0)
        case 6: return "[" + (0..<Int.random(in: 0...50, using: &random)).map { _ in pick(["1", "\"x\"", "null"]) }.joined(separator: ",") + "]"
        case 7: return "{" + (0..<Int.random(in: 0...5, using: &random)).map { _ in member() }.joined(separator: ",") + "}"
        default: return "\"" + pick(["5m", "off", "100", "x", "", "all"]) + "\""
        }
    }

    mutating func key() -> String {
        let keys = SettingKey.all.map(\.name)
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return pick(["colour", "", "main", "trip", "wifi_zone", "\\u0000", "endpoint ", "Endpoint", String(repeating: "k", count: 5000)])
        default: return pick(keys).split(separator: ".").last.map(String.init) ?? "x"
        }
    }

    mutating func member() -> String { "\"" + key() + "\": " + value() }

    /// A whole settings file.
    mutating func document() -> [UInt8] {
        var members: [String] = []
        for _ in 0..<Int.random(in: 0...12, using: &random) {
            switch Int.random(in: 0..<6, using: &random) {
            case 0: members.append("\"" + pick(["main", "trip", "wifi_zone"]) + "\": {" +
                                   (0..<Int.random(in: 0...6, using: &random)).map { _ in member() }.joined(separator: ", ") + "}")
            default: members.append(member())
            }
        }
        if chance(10), let first = members.first { members.append(first) }   // a repeated key
        var text = "{\n  " + members.joined(separator: ",\n  ") + "\n}\n"
        switch Int.random(in: 0..<20, using: &random) {
        case 0: text = "\u{FEFF}" + text
        case 1: text = String(text.dropLast(Int.random(in: 1...min(4, text.count), using: &random)))
        case 2: text += ",}"
        case 3: text = Self.nested(pick([16, 17, 1000, 140_000]), open: pick([#"{"a":"#, "[", #"{"a":["#]), close: "")
        default: break
        }
        return Array(text.utf8)
    }
}

@Suite("settings structure-aware fuzz")
struct SettingsFuzzTests {
    /// What every outcome must satisfy: no trap; a refusal is one line naming the file;
    /// what is accepted saves and loads back the same.
    static func check(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let settings = try SettingsFile.decode(bytes, path: "/fuzz/settings.json")
            let again = try SettingsFile.decode(SettingsFile.encode(settings), path: "/fuzz/settings.json")
            #expect(again == settings, sourceLocation: sourceLocation)
        } catch {
            let text = error.description
            #expect(!text.contains("\n") && text.contains("/fuzz/settings.json"), "\(text.prefix(300))", sourceLocation: sourceLocation)
            #expect(PrintableText.isPrintable(text, allowLineBreaks: false), "\(text.prefix(300))", sourceLocation: sourceLocation)
            #expect(text.utf8.count < 4096, "a message as long as the file: \(text.utf8.count) bytes", sourceLocation: sourceLocation)
        }
    }

    @Test("seeded settings files with every key and hostile values")
    func structuredFiles() {
        let seed = FuzzBudget.seed(0x13_0002)
        var generator = SettingsGenerator(seed: seed)
        let files = FuzzBudget.run(600, seconds: 4) { _ in Self.check(generator.document()) }
        print("settings structured fuzz: seed \(seed), \(files) files")
        #expect(files > 0)
    }

    @Test("a server's set with every key and hostile values is applied or refused, never traps, the file stays valid")
    func serverSets() throws {
        let seed = FuzzBudget.seed(0x13_0003)
        var generator = SettingsGenerator(seed: seed)
        let sets = FuzzBudget.run(600, seconds: 3) { _ in
            let text = "{" + (0..<Int.random(in: 0...8, using: &generator.random)).map { _ in
                generator.chance(30) ? "\"" + generator.pick(["main", "trip"]) + "\": {" + generator.member() + "}" : generator.member()
            }.joined(separator: ",") + "}"
            guard let value = try? JSONParser.parse(Array(text.utf8), limits: JSONLimits(maxDepth: 64)) else { return }
            var settings = Settings()
            let outcome = applyServerSet(value, to: &settings)
            for warning in outcome.warnings { #expect("\(warning)".utf8.count < 1024) }
            Self.check(SettingsFile.encode(settings))
        }
        print("server set fuzz: seed \(seed), \(sets) sets")
    }

    @Test("every kept regression input is refused or read, in bounded time, never a trap")
    func regressions() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Regressions/settings")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(!files.isEmpty)
        for file in files {
            var bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(file)))
            if file.hasSuffix(".recipe") {
                let parts = String(decoding: bytes, as: UTF8.self).split(separator: " ", maxSplits: 2).map(String.init)
                let tokens = parts.count == 3 ? parts[2].trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").map(String.init) : []
                guard parts.first == "nested", let depth = Int(parts[1]), tokens.count == 2 else {
                    Issue.record("unreadable recipe \(file)")
                    continue
                }
                bytes = Array(SettingsGenerator.nested(depth, open: tokens[0], close: tokens[1]).utf8)
            }
            Self.check(bytes)
        }
    }
}
