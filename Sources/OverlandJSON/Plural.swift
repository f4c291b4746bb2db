/// Counts in messages: "1 point", "2 points", "0 points". The one place a count meets its
/// noun, so that no message says "1 requests".
public enum Plural {
    /// `count` and `noun`, the noun in the plural unless `count` is 1: `plural`, else the
    /// noun with "s" (or "es" after s, x, ch and sh: "batches").
    public static func count(_ count: some BinaryInteger, _ noun: String, plural: String? = nil) -> String {
        "\(count) " + (count == 1 ? noun : plural ?? Self.plural(of: noun))
    }

    /// `items` as a list in a sentence: "a", "a or b", "a, b or c" (`conjunction`: "or", "and").
    public static func list(_ items: [String], _ conjunction: String = "or") -> String {
        guard let last = items.last else { return "" }
        guard items.count > 1 else { return last }
        return items.dropLast().joined(separator: ", ") + " \(conjunction) " + last
    }

    /// The regular English plural of `noun`.
    static func plural(of noun: String) -> String {
        for ending in ["s", "x", "ch", "sh"] where noun.hasSuffix(ending) { return noun + "es" }
        return noun + "s"
    }
}
