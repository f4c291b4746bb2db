import TestSupport
import Foundation
import Testing

@testable import OverlandJournal

/// Structure-aware fuzzing of `state/times` (journal-format.md section 15, issue 21): files
/// built from the grammar's pieces with every number at and beside its limits (0, 1, the
/// last second a timestamp names, 2^53, 2^63 - 1), signs, leading zeros, doubled spaces,
/// device keys escaped otherwise, out of order or repeated, lines cut short. Whatever the
/// file, opening it never crashes; it is accepted exactly when a plain reading of the
/// grammar accepts it, and then every lookup agrees with the runs as written.
@Suite("Time index fuzzing")
struct TimeIndexFuzzTests {
    struct Generator {
        var random: SplitMix
        mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
        mutating func pick<T>(_ items: [T]) -> T { items.randomElement(using: &random)! }

        mutating func number(small: Bool) -> String {
            let max = TimeIndexFile.maxSecond
            if small && chance(70) { return String(Int.random(in: 0...40, using: &random)) }
            return pick(["0", "1", "2", String(max), String(max - 1), String(max + 1), "9007199254740992", "9007199254740993",
                         "9223372036854775807", "9223372036854775808", "+1", "-1", "01", "00", "1e3", "", " 1", "1 "])
        }

        mutating func key() -> String {
            pick(["van", "bike", "", "alice/van", "caf\u{e9}", "a\\\"b", "a\\\\b", "\\u0001", "\\u0076an", "\\/", "\\n",
                  "a\"b", String(repeating: "k", count: 600)])
        }

        mutating func file() -> String {
            var text = chance(90) ? "overland-times 2 through \(number(small: chance(50)))\n" : pick(["overland-times 1 through 5\n", "overland-times 2\n", ""])
            var keys = (0..<Int.random(in: 0...3, using: &random)).map { _ in key() }
            if chance(70) { keys.sort { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) } }
            for key in keys {
                text += "device \"\(key)\"\n"
                for _ in 0..<Int.random(in: 0...6, using: &random) {
                    text += "\(number(small: true)) \(number(small: true)) \(number(small: true))\n"
                }
            }
            if chance(5), !text.isEmpty { text.removeLast() }
            if chance(5) { text += "1 1 1\n" }
            return text
        }
    }

    /// The grammar read plainly, for comparison: nil when the file breaks it, else each
    /// device's runs (start, step, count).
    static func reference(_ text: String) -> [(key: String, runs: [(Int64, Int64, Int64)])]? {
        guard text.hasSuffix("\n") else { return nil }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()
        guard let header = lines.first, header.hasPrefix("overland-times 2 through "),
              let through = plain(String(header.dropFirst(25))), through <= 1 << 53 else { return nil }
        var sections: [(key: String, runs: [(Int64, Int64, Int64)])] = []
        var total: Int64 = 0
        for line in lines.dropFirst() {
            if line.hasPrefix("device \"") {
                guard line.hasSuffix("\""), line.count >= 9 else { return nil }
                let key = String(line.dropFirst(8).dropLast())
                guard canonical(key), key.utf8.count <= 512 else { return nil }
                if let last = sections.last {
                    guard !last.runs.isEmpty, Array(last.key.utf8).lexicographicallyPrecedes(Array(key.utf8)) else { return nil }
                }
                sections.append((key, []))
                continue
            }
            guard !sections.isEmpty else { return nil }
            let fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3, let delta = plain(fields[0]), let step = plain(fields[1]), let count = plain(fields[2]),
                  step >= 1, count >= 1 else { return nil }
            let previous = sections[sections.count - 1].runs.last
            let start = (previous?.0 ?? 0) + delta
            guard start <= TimeIndexFile.maxSecond, (count - 1) <= (TimeIndexFile.maxSecond - start) / step else { return nil }
            if let previous { guard start > previous.0 + previous.1 * (previous.2 - 1) else { return nil } }
            total += count
            guard total <= through else { return nil }
            sections[sections.count - 1].runs.append((start, step, count))
        }
        if let last = sections.last, last.runs.isEmpty { return nil }
        return sections
    }

    static func plain(_ text: String) -> Int64? {
        guard !text.isEmpty, text.count <= 16, text.allSatisfy({ $0.isASCII && $0.isNumber }), text == "0" || !text.hasPrefix("0") else { return nil }
        return Int64(text).flatMap { $0 <= 1 << 53 ? $0 : nil }
    }

    static func canonical(_ key: String) -> Bool {
        guard let data = "\"\(key)\"".data(using: .utf8), let decoded = try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed) as? String
        else { return false }
        return Array(LocationKey.escape(decoded).utf8) == Array(key.utf8)
    }

    enum LocationKey {
        /// JSON string escaping as the writers do it (journal-format.md section 15).
        static func escape(_ text: String) -> String {
            var out = ""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out
        }
    }

    @Test("seeded time-index files: accepted exactly by the grammar, lookups as written, never a crash")
    func structuredTimeIndexFiles() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/times"
        var generator = Generator(random: SplitMix(state: FuzzBudget.seed(0x21_0015)))
        var accepted = 0
        let done = try FuzzBudget.run(3000, seconds: 4) { _ in
            let text = generator.file()
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            let opened = try TimeIndexFile.open(path, in: POSIXFileSystem())
            let expected = Self.reference(text)
            guard case .success(let file)? = opened else {
                #expect(expected == nil, "refused a file the grammar allows: \(text.debugDescription)")
                return
            }
            guard let expected else {
                Issue.record("accepted a file the grammar refuses: \(text.debugDescription)")
                return
            }
            accepted += 1
            #expect(file.sections.count == expected.count)
            for section in expected {
                let index = try #require(file.section(of: Array(section.key.utf8)))
                for run in section.runs {
                    for probe in [run.0 - 1, run.0, run.0 + 1, run.0 + run.1, run.0 + run.1 * (run.2 - 1), run.0 + run.1 * run.2] {
                        let held = section.runs.contains { probe >= $0.0 && probe <= $0.0 + $0.1 * ($0.2 - 1) && (probe - $0.0) % $0.1 == 0 }
                        #expect(try file.contains(section: index, probe) == held, "\(probe) in \(text.debugDescription)")
                    }
                }
            }
        }
        #expect(done > 0)
        print("time index fuzzing: \(done) files, \(accepted) accepted")
    }
}
