import Testing
@testable import OverlandMap
import OverlandProtocol

@Suite struct MercatorTests {
    @Test func knownValues() {
        #expect(Mercator.x(longitude: -180) == 0 && Mercator.x(longitude: 0) == 0.5 && Mercator.x(longitude: 180) == 1)
        #expect(abs(Mercator.y(latitude: 0) - 0.5) < 1e-12)
        #expect(abs(Mercator.y(latitude: Mercator.maxLatitude)) < 1e-9)
        #expect(abs(Mercator.y(latitude: 89.9) - Mercator.y(latitude: Mercator.maxLatitude)) < 1e-12, "clamped at the limit")
        // OpenStreetMap's tile of Berlin at zoom 10 is (550, 335).
        #expect(Int(Mercator.x(longitude: 13.4) * 1024) == 550 && Int(Mercator.y(latitude: 52.5) * 1024) == 335)
        #expect(abs(Mercator.latitude(y: Mercator.y(latitude: 52.5)) - 52.5) < 1e-9)
    }

    @Test func longitudesUnwrapAcrossTheAntimeridian() {
        #expect(Mercator.unwrap(-179.9, after: 179.9) == 180.1 || abs(Mercator.unwrap(-179.9, after: 179.9) - 180.1) < 1e-9)
        #expect(abs(Mercator.unwrap(179.9, after: -179.9) - -180.1) < 1e-9)
        #expect(Mercator.unwrap(10, after: 20) == 10)
        #expect(Mercator.unwrap(10, after: nil) == 10)
    }

    @Test func onePointGetsAStreetScaleViewCentred() {
        let x = Mercator.x(longitude: -3.7), y = Mercator.y(latitude: 40.4)
        let view = MapView.fit(minX: x, minY: y, maxX: x, maxY: y, width: 1000, height: 700)
        #expect(view.scale == MapView.maxScale)
        let at = view.pixel(x: x, y: y)
        #expect(abs(at.x - 500) < 1e-6 && abs(at.y - 350) < 1e-6)
        let bar = view.scaleBar()
        #expect([50.0, 100].contains(bar.metres) && bar.pixels <= 120 && bar.pixels > 40, "\(bar)")
    }

    @Test func aWideTrackFitsTheWidth() {
        let view = MapView.fit(minX: 0.2, minY: 0.4, maxX: 0.4, maxY: 0.41, width: 1000, height: 700)
        #expect(abs(view.pixel(x: 0.2, y: 0.4).x - 24) < 1e-9 && abs(view.pixel(x: 0.4, y: 0.4).x - 976) < 1e-9)
    }
}

@Suite struct MapTextTests {
    @Test func scriptDataCannotCloseItsElement() {
        #expect(MapText.jsonString("a</script><b>&\"\\") == #""a\u003c/script\u003e\u003cb\u003e\u0026\"\\""#)
        #expect(MapText.escaped("<img src=\"x\">&'") == "&lt;img src=&quot;x&quot;&gt;&amp;&#39;")
        #expect(MapText.escaped("a\u{202E}b\u{1B}[31m") == "ab[31m")
    }

    @Test func numbersAndDurations() {
        #expect(MapText.tenth(-0.04) == "0" && MapText.tenth(12.34) == "12.3" && MapText.tenth(-3.25) == "-3.3")
        #expect(MapText.duration(45) == "45 s" && MapText.duration(725) == "12 min 05 s" && MapText.duration(3 * 3600 + 300) == "3 h 05 min")
        #expect(MapText.distance(850) == "850 m" && MapText.distance(12_345) == "12.3 km" && MapText.distance(1_234_000) == "1234 km")
    }

    @Test func tileTemplates() throws {
        let template = try TileTemplate.parse("https://tile.example.org:8443/{z}/{x}/{y}.png", attribution: nil).get()
        #expect(template.origin == "https://tile.example.org:8443")
        #expect(template.url(z: 3, x: 4, y: 5) == "https://tile.example.org:8443/3/4/5.png")
        for bad in ["tile.example.org/{z}/{x}/{y}", "https://{s}.tile.org/{z}/{x}/{y}.png", "https://a.org/{z}/{x}.png", "https://a.org/{z}/{x}/{y}\".png"] {
            if case .success = TileTemplate.parse(bad, attribution: nil) { Issue.record("accepted \(bad)") }
        }
    }
}

@Suite struct TrackCollectorTests {
    static func location(_ latitude: Double, _ longitude: Double, _ time: Int64, trip: String? = nil) -> LocationFeature {
        var feature = LocationFeature(longitude: longitude, latitude: latitude, timestamp: time)
        feature.deviceID = "van"
        feature.speed = 5
        feature.tripID = trip
        return feature
    }

    /// 10,000 points a metre apart, a gap and a stop: thinned to a pixel, the gap's ends kept.
    @Test func thinningKeepsGapsStopsAndEnds() {
        var options = MapOptions()
        options.streamBudget = 1_000
        options.destinations = [("home", 9_000)]
        var collector = TrackCollector(options: options)
        for index in 0..<10_000 {
            let time = Int64(1_795_000_000 + index + (index >= 5_000 ? 900 : 0))
            collector.add(Self.location(48.1, 11.5 + Double(index) * 0.000013, time), sequence: UInt64(index))
        }
        for index in 0..<400 { collector.add(Self.location(48.1, 11.63, Int64(1_795_011_000 + index)), sequence: UInt64(10_000 + index)) }
        collector.finish()
        #expect(collector.kept.count < 1_100)
        #expect(collector.summary.gapCount == 1 && collector.gaps.count == 1)
        // The gap is in one place (the logger was off where it stood): a stop too; and the end.
        #expect(collector.summary.stopCount == 2)
        #expect(collector.summary.unsent.first?.count == 1_400)
        let layout = MapLayout(collector: collector)
        let gapEnds = layout.points.filter { $0.flags & MapPoint.gapAfter != 0 }
        #expect(gapEnds.count == 1 && gapEnds.first?.time == 1_795_004_999)
        #expect(layout.points.contains { $0.time == 1_795_005_900 }, "the point after the gap")
        #expect(layout.points.first?.time == 1_795_000_000 && layout.points.last?.time == 1_795_011_399)
        #expect(layout.points.contains { $0.unsent != 0 } && layout.firstUnsent(destination: 0) != nil)
        #expect(layout.points.count < 1_500)
    }

    @Test func tripsAndDaysAreTracks() {
        var collector = TrackCollector(options: MapOptions())
        collector.add(Self.location(48.1, 11.5, 1_795_000_000), sequence: 0)
        collector.add(Self.location(48.1, 11.5001, 1_795_000_001, trip: "t1"), sequence: 1)
        collector.add(Self.location(48.1, 11.5002, 1_795_000_002, trip: "t1"), sequence: 2)
        collector.add(Self.location(48.1, 11.5003, 1_795_000_000 + 86_400), sequence: 3)
        collector.finish()
        #expect(collector.summary.tracks.map(\.name) == ["2026-11-18", "trip t1", "2026-11-19"])
    }
}
