/// What `overland map` draws and how.
public struct MapOptions: Sendable {
    public enum Output: Sendable { case html, svg }
    public enum Coloring: String, Sendable, CaseIterable { case track, speed }

    public var output: Output = .html
    public var coloring: Coloring = .track
    /// The map's size in CSS pixels; the simplification keeps what shows at this size.
    public var width = 1000
    public var height = 700
    /// No point for longer than this: a gap, drawn dashed and listed.
    public var gapSeconds: Int64 = 300
    /// Within `stopRadius` metres for at least this long: a stop.
    public var stopSeconds: Int64 = 300
    public var stopRadius = 50.0
    /// Only this device's points (nil: all).
    public var device: String?
    /// Only one trip's points: the last one, or the Nth (from 1) in time order, of the points
    /// the window and `device` select (a point's `trip_id`).
    public var trip: TripChoice?
    /// The chosen trip's id (`MapDrawing` finds it from `trip`).
    var tripID: String?
    /// Each destination's cursor: points at or after `next` are not yet sent to it.
    public var destinations: [(name: String, next: UInt64)] = []
    /// A basemap: `https://host/{z}/{x}/{y}.png`; nil draws none and the page requests nothing.
    public var tiles: TileTemplate?
    /// The page's title (the journal, the window).
    public var title = "overland map"
    /// Points kept while streaming, at most (about 48 bytes each): the memory bound.
    public var streamBudget = 150_000
    /// Points drawn, at most: the file's size bound (about 30 bytes each in HTML).
    public var drawBudget = 120_000

    public init() {}
}

public enum TripChoice: Sendable, Equatable {
    case last
    case number(Int)

    /// `last` or a number from 1; nil otherwise.
    public init?(_ text: String) {
        if text == "last" {
            self = .last
        } else if let number = Int(text), number >= 1 {
            self = .number(number)
        } else {
            return nil
        }
    }
}

/// A tile url template: http(s), a host, and `{z}`, `{x}`, `{y}`.
public struct TileTemplate: Sendable, Equatable {
    public let template: String
    /// scheme://host[:port], for the page's Content-Security-Policy.
    public let origin: String
    public var attribution: String

    /// nil, with the reason, when `template` is not one.
    public static func parse(_ template: String, attribution: String?) -> Result<TileTemplate, TileTemplateError> {
        let lower = template.lowercased()
        guard let schemeEnd = lower.hasPrefix("https://") ? 8 : lower.hasPrefix("http://") ? 7 : nil else {
            return .failure(TileTemplateError("a tile template starts with http:// or https://, not '\(template)'"))
        }
        let rest = template.dropFirst(schemeEnd)
        let host = rest.prefix { $0 != "/" }
        guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || "-.:[]".contains($0) }) else {
            return .failure(TileTemplateError("a tile template's host is letters, digits, '-', '.', ':' (no {s}): '\(template)'"))
        }
        for key in ["{z}", "{x}", "{y}"] where !template.contains(key) {
            return .failure(TileTemplateError("a tile template holds {z}, {x} and {y}: '\(template)' has no \(key)"))
        }
        guard template.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "\"" && $0 != "'" && $0 != "<" && $0 != ">" }) else {
            return .failure(TileTemplateError("a tile template is a url without spaces or quotes: '\(template)'"))
        }
        let origin = String(template.prefix(schemeEnd)) + String(host)
        return .success(TileTemplate(template: template, origin: origin, attribution: attribution ?? "Tiles: \(host)"))
    }

    /// The url of tile (z, x, y).
    func url(z: Int, x: Int, y: Int) -> String {
        template.replacingOccurrences("{z}", String(z)).replacingOccurrences("{x}", String(x)).replacingOccurrences("{y}", String(y))
    }
}

public struct TileTemplateError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension String {
    /// Every `target` replaced (no Foundation).
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.range(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

extension Substring {
    func range(of target: String) -> Range<Substring.Index>? {
        guard !target.isEmpty else { return nil }
        var index = startIndex
        while index < endIndex {
            if self[index...].hasPrefix(target) { return index..<self.index(index, offsetBy: target.count) }
            index = self.index(after: index)
        }
        return nil
    }
}
