import Foundation
import Testing
import TestSupport

/// `overland map`'s pages rendered in headless Chromium and checked in the screenshot: the
/// track where the projection puts the points and nowhere else, a gap as dashes, no request
/// leaving the page without `--tiles`, no console message.
@Suite struct MapBrowserTests {
    /// An L: a kilometre east, then a kilometre north, a point a second.
    static func lShape() -> [MapSandbox.Point] {
        var points: [MapSandbox.Point] = []
        for index in 0..<150 { points.append(.init(latitude: 52.5, longitude: 13.4 + Double(index) * 0.0001, time: MapSandbox.t0 + Int64(index))) }
        for index in 1...150 {
            points.append(.init(latitude: 52.5 + Double(index) * 0.00006, longitude: 13.4149, time: MapSandbox.t0 + 149 + Int64(index)))
        }
        return points
    }

    /// Every drawn point has track pixels at its projected position, and no track pixel is
    /// farther than 5 px from the line through them.
    static func expectTrack(_ render: HeadlessChromium.Render, _ points: [MapSandbox.Point], sourceLocation: SourceLocation = #_sourceLocation) {
        let line = MapSandbox.projected(points)
        for (index, at) in line.enumerated() where index > 2 && index < line.count - 3 && index % 7 == 0 {
            let found = render.image.hasColor(near: at.x, at.y, radius: 2, MapSandbox.track)
            #expect(found, "no track pixel at point \(index), projected to \(at)", sourceLocation: sourceLocation)
        }
        let pixels = MapSandbox.trackPixels(render.image, line: line)
        #expect(pixels.count > 500, "only \(pixels.count) track pixels", sourceLocation: sourceLocation)
        #expect(pixels.farthest <= 5, "a track pixel \(pixels.farthest) px from the track", sourceLocation: sourceLocation)
    }

    @Test func theTrackIsDrawnWhereItsPointsProjectAndNowhereElse() throws {
        let sandbox = try MapSandbox()
        let points = Self.lShape()
        try sandbox.write(points, sealEvery: 100)
        let output = sandbox.directory.appending("map.html")
        let map = try sandbox.map(["--output", output])
        #expect(map.succeeded, "\(map)")
        #expect(map.stderrText.contains("300 points"), "\(map.stderrText)")
        let render = try HeadlessChromium().render(output, width: MapSandbox.width, height: 900)
        #expect(render.console.isEmpty, "console: \(render.console)")
        Self.expectTrack(render, points)
        let line = MapSandbox.projected(points)
        let first = try #require(line.first), last = try #require(line.last)
        let start = render.image.hasColor(near: first.x, first.y, radius: 2, MapSandbox.start)
        let end = render.image.hasColor(near: last.x, last.y, radius: 2, MapSandbox.end)
        #expect(start, "no start marker at \(first)")
        #expect(end, "no end marker at \(last)")
    }

    @Test func theSVGIsTheSamePicture() throws {
        let sandbox = try MapSandbox()
        let points = Self.lShape()
        try sandbox.write(points)
        let output = sandbox.directory.appending("map.svg")
        let map = try sandbox.map(["--output", output])
        #expect(map.succeeded, "\(map)")
        let render = try HeadlessChromium().render(output, width: MapSandbox.width, height: 900)
        #expect(render.console.isEmpty, "console: \(render.console)")
        Self.expectTrack(render, points)
    }

    /// Twenty minutes without a point between two stretches a few kilometres apart: dashes
    /// (grey and background in turn along the line), no track colour in between.
    @Test func aGapIsDrawnAsDashes() throws {
        let sandbox = try MapSandbox()
        var points: [MapSandbox.Point] = []
        for index in 0..<60 { points.append(.init(latitude: 48.1, longitude: 11.5 + Double(index) * 0.0001, time: MapSandbox.t0 + Int64(index))) }
        for index in 0..<60 {
            points.append(.init(latitude: 48.1, longitude: 11.53 + Double(index) * 0.0001, time: MapSandbox.t0 + 1_260 + Int64(index)))
        }
        try sandbox.write(points)
        let output = sandbox.directory.appending("gap.html")
        let map = try sandbox.map(["--output", output])
        #expect(map.succeeded, "\(map)")
        #expect(map.stderrText.contains("1 gap"), "\(map.stderrText)")
        let render = try HeadlessChromium().render(output, width: MapSandbox.width, height: 900)
        #expect(render.console.isEmpty, "console: \(render.console)")
        let line = MapSandbox.projected(points)
        let from = try #require(line.dropFirst(59).first), to = try #require(line.dropFirst(60).first)
        var runs: [Bool] = []
        for step in 0...400 {
            let t = 0.1 + 0.8 * Double(step) / 400
            let x = Int((from.x + t * (to.x - from.x)).rounded()), y = Int((from.y + t * (to.y - from.y)).rounded())
            let trackColour = render.image.matches(x, y, MapSandbox.track)
            #expect(!trackColour, "track colour inside the gap at \(x), \(y)")
            let grey = render.image.matches(x, y, MapSandbox.gap, tolerance: 60)
            if runs.last != grey { runs.append(grey) }
        }
        #expect(runs.filter { $0 }.count >= 8, "the gap is not dashed: \(runs.count) runs along it")
        #expect(runs.filter { !$0 }.count >= 8, "the gap is not dashed: \(runs.count) runs along it")
    }

    /// Without --tiles, nothing leaves the page: a device id holding an image tag to a
    /// loopback server is text, and the server sees no request. With --tiles the same
    /// server gets the tile requests (the check can see one).
    @Test func aPageWithoutTilesRequestsNothing() throws {
        let server = try LocalServer()
        defer { server.stop() }
        let sandbox = try MapSandbox()
        let device = "x\"><img src=\"\(server.baseURL)/leak.png\"><script src=\"\(server.baseURL)/leak.js\"></script>"
        try sandbox.write(Self.lShape().map { var point = $0; point.device = device; return point })
        let output = sandbox.directory.appending("map.html")
        let map = try sandbox.map(["--output", output])
        #expect(map.succeeded, "\(map)")
        let render = try HeadlessChromium().render(output, width: MapSandbox.width, height: 900)
        #expect(server.requests.isEmpty, "requests: \(server.requests.map(\.uri))")
        #expect(render.console.isEmpty, "console: \(render.console)")

        let tiled = try sandbox.map(["--output", output, "--force", "--tiles", server.baseURL + "/tiles/{z}/{x}/{y}.png"])
        #expect(tiled.succeeded, "\(tiled)")
        _ = try HeadlessChromium().render(output, width: MapSandbox.width, height: 900)
        let uris = server.requests.map(\.uri)
        #expect(!uris.isEmpty && uris.allSatisfy { $0.hasPrefix("/tiles/") && $0.hasSuffix(".png") }, "tile requests: \(uris)")
    }

    /// A track across the antimeridian (Fiji) is one short line, not one across the world.
    @Test func aTrackAcrossTheAntimeridianStaysTogether() throws {
        let sandbox = try MapSandbox()
        let points = (0..<120).map { index -> MapSandbox.Point in
            var longitude = 179.97 + Double(index) * 0.0005
            if longitude > 180 { longitude -= 360 }
            return .init(latitude: -16.8, longitude: longitude, time: MapSandbox.t0 + Int64(index))
        }
        try sandbox.write(points)
        let output = sandbox.directory.appending("fiji.html")
        let map = try sandbox.map(["--output", output])
        #expect(map.succeeded, "\(map)")
        let render = try HeadlessChromium().render(output, width: MapSandbox.width, height: 900)
        Self.expectTrack(render, points)
    }

    /// Near the pole (84° N, Mercator's scale seven times the equator's) the track is where
    /// the projection puts it.
    @Test func aTrackNearThePoleIsDrawnRight() throws {
        let sandbox = try MapSandbox()
        let points = (0..<200).map { index in
            MapSandbox.Point(latitude: 84 + Double(index) * 0.00002, longitude: -30 + Double(index) * 0.0004, time: MapSandbox.t0 + Int64(index))
        }
        try sandbox.write(points)
        let output = sandbox.directory.appending("pole.html")
        let map = try sandbox.map(["--output", output])
        #expect(map.succeeded, "\(map)")
        Self.expectTrack(try HeadlessChromium().render(output, width: MapSandbox.width, height: 900), points)
    }

    /// One point, and a hundred in one place: the start marker in the middle of a street-scale view.
    @Test(arguments: [1, 100]) func pointsInOnePlaceAreCentred(count: Int) throws {
        let sandbox = try MapSandbox()
        try sandbox.write((0..<count).map { .init(latitude: 40.4, longitude: -3.7, time: MapSandbox.t0 + Int64($0)) })
        let output = sandbox.directory.appending("one.html")
        let map = try sandbox.map(["--output", output])
        #expect(map.succeeded, "\(map)")
        let render = try HeadlessChromium().render(output, width: MapSandbox.width, height: 900)
        #expect(render.console.isEmpty, "console: \(render.console)")
        let middle = render.image.hasColor(near: 500, 350, radius: 3, MapSandbox.start)
        let corner = render.image.hasColor(near: 100, 100, radius: 50, MapSandbox.start)
        #expect(middle, "no start marker in the middle")
        #expect(!corner, "a start marker away from the middle")
    }
}
