import Foundation
import OverlandJournal
import OverlandJSON
import OverlandMap
import TestSupport

/// A journal of chosen points for `overland map`, and where the map puts them.
struct MapSandbox {
    static let t0: Int64 = 1_795_000_000   // 2026-11-18 11:06:40Z: no day boundary in a few hours
    static let width = 1000, height = 700
    static let track = "#1f5fbf", gap = "#555555", start = "#2ca02c", end = "#111111", background = "#f4f2ec"

    struct Point {
        var latitude: Double
        var longitude: Double
        var time: Int64
        var speed = 8.0
        var device = "van"
        var trip: String?
    }

    let directory: TemporaryDirectory
    let runner: ToolRunner
    var journal: String { directory.appending("journal") }

    init() throws {
        directory = try TemporaryDirectory(prefix: "overland-map")
        var runner = ToolRunner(product: "overland")
        runner.environment = MoveSandbox.environment(directory)
        self.runner = runner
    }

    /// Writes `points` to a new journal, sealing a segment every `sealEvery` points.
    func write(_ points: [Point], sealEvery: Int = 1_000) throws {
        let journal = try Journal(path: self.journal, create: true, deviceID: "van")
        let appender = try JournalAppender(journal: journal)
        for (index, point) in points.enumerated() {
            try appender.append(Array(Self.line(point).utf8))
            if index % sealEvery == sealEvery - 1 { try appender.sealActive() }
        }
        try appender.commit()
    }

    static func line(_ point: Point) -> String {
        var writer = JSONWriter()
        writer.appendString(point.device)
        let device = String(decoding: writer.bytes, as: UTF8.self)
        return #"{"type":"Feature","geometry":{"type":"Point","coordinates":["# + "\(point.longitude),\(point.latitude)]},"
            + #""properties":{"timestamp":""# + ISO8601UTC.string(from: point.time) + #"","altitude":30,"speed":"# + "\(point.speed)"
            + #","course":90,"horizontal_accuracy":5,"vertical_accuracy":3,"speed_accuracy":-1,"course_accuracy":-1,"#
            + #""motion":["driving"],"battery_state":"unplugged","battery_level":0.8,"wifi":"","device_id":"# + device
            + (point.trip.map { #","trip_id":""# + $0 + "\"" } ?? "") + "}}"
    }

    func map(_ arguments: [String]) throws -> ToolResult {
        try runner.run(["map", "--journal", journal] + arguments)
    }

    /// Where the map's fit puts each point, in page pixels (the map is the page's top-left).
    static func projected(_ points: [Point]) -> [(x: Double, y: Double)] {
        var previous: Double?
        let world = points.map { point -> (Double, Double) in
            let longitude = Mercator.unwrap(point.longitude, after: previous)
            previous = longitude
            return (Mercator.x(longitude: longitude), Mercator.y(latitude: point.latitude))
        }
        let view = MapView.fit(minX: world.map(\.0).min()!, minY: world.map(\.1).min()!, maxX: world.map(\.0).max()!,
                               maxY: world.map(\.1).max()!, width: width, height: height)
        return world.map { view.pixel(x: $0.0, y: $0.1) }
    }

    /// The distance from (x, y) to the polyline through `line`.
    static func distance(_ x: Double, _ y: Double, to line: [(x: Double, y: Double)]) -> Double {
        guard line.count > 1 else { return line.first.map { hypot($0.x - x, $0.y - y) } ?? .infinity }
        var best = Double.infinity
        for (a, b) in zip(line, line.dropFirst()) {
            let dx = b.x - a.x, dy = b.y - a.y, length = dx * dx + dy * dy
            let t = length == 0 ? 0 : max(0, min(1, ((x - a.x) * dx + (y - a.y) * dy) / length))
            best = min(best, hypot(a.x + t * dx - x, a.y + t * dy - y))
        }
        return best
    }

    /// The map's pixels of the track's colour (within its frame), and how far the farthest
    /// is from `line`.
    static func trackPixels(_ image: PNGImage, line: [(x: Double, y: Double)]) -> (count: Int, farthest: Double) {
        var count = 0, farthest = 0.0
        for y in 0..<min(height, image.height) {
            for x in 0..<min(width, image.width) where image.matches(x, y, track) {
                count += 1
                farthest = max(farthest, distance(Double(x), Double(y), to: line))
            }
        }
        return (count, farthest)
    }
}
