/// Close matches for a mistyped key.
enum Suggestions {
    /// The candidates within a small edit distance of `word` (case and `_`, `-`, space
    /// ignored), or of one of their words, or containing it; best first, at most three.
    static func closeMatches(for word: String, among candidates: [String]) -> [String] {
        let target = normalized(word)
        let limit = max(1, min(3, target.count / 3))
        var scored: [(String, Int)] = []
        for candidate in candidates {
            let other = normalized(candidate)
            var distance = editDistance(target, other)
            if target.count >= 4 {
                // "loging" is close to the "logging" of "logging_mode".
                for word in candidate.split(whereSeparator: { $0 == "_" || $0 == "." }) {
                    distance = min(distance, editDistance(target, normalized(String(word))))
                }
                if contains(other, target) { distance = min(distance, limit) }
            }
            if distance <= limit { scored.append((candidate, distance)) }
        }
        return scored.sorted { $0.1 < $1.1 }.prefix(3).map(\.0)
    }

    private static func normalized(_ text: String) -> [UInt8] {
        text.lowercased().utf8.filter { $0 != UInt8(ascii: "_") && $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: " ") }
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        haystack.count >= needle.count
            && (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// Levenshtein distance.
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
