import OverlandJournal
import Testing

/// `scripts/mutants`, the edits `scripts/mutate` measures the explorer with: each mutant's
/// old text is still in its file exactly once, so that a change to the code cannot turn a
/// mutant into a no-op that "survives" (or a build error) unnoticed.
@Suite struct MutantsTests {
    static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3) // Tests/OverlandSimulationTests/MutantsTests.swift
        return parts.joined(separator: "/")
    }()

    struct Mutant {
        var id: String
        var file = ""
        var old: [String] = []
    }

    static func mutants() throws -> [Mutant] {
        let text = String(decoding: try POSIXFileSystem().readFile(root + "/scripts/mutants", limit: 1 << 20), as: UTF8.self)
        var mutants: [Mutant] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) where !line.hasPrefix("#") {
            if line.hasPrefix("@@ ") {
                mutants.append(Mutant(id: String(line.dropFirst(3).prefix { $0 != " " })))
            } else if line.hasPrefix("file: ") {
                mutants[mutants.count - 1].file = String(line.dropFirst(6))
            } else if line.hasPrefix("- ") || line == "-" {
                mutants[mutants.count - 1].old.append(String(line.dropFirst(2)))
            }
        }
        return mutants
    }

    static func occurrences(of needle: [UInt8], in haystack: [UInt8]) -> Int {
        var count = 0
        var rest = haystack[...]
        while let found = rest.firstRange(of: needle) {
            count += 1
            rest = rest[found.upperBound...]
        }
        return count
    }

    @Test func everyMutantsOldTextIsFoundOnce() throws {
        let mutants = try Self.mutants()
        #expect(mutants.count >= 20)
        #expect(Set(mutants.map(\.id)).count == mutants.count, "mutant ids are unique")
        for mutant in mutants {
            #expect(!mutant.old.isEmpty && !mutant.file.isEmpty, "\(mutant.id)")
            let source = try POSIXFileSystem().readFile(Self.root + "/" + mutant.file, limit: 1 << 22)
            let old = Array((mutant.old.joined(separator: "\n") + "\n").utf8)
            #expect(Self.occurrences(of: old, in: source) == 1, "\(mutant.id): its old text in \(mutant.file)")
        }
    }
}
