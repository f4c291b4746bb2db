/// The picture, as an `<svg>` element the HTML page embeds and the SVG file is: background,
/// basemap tiles, the unsent stretch, gaps, tracks, stops, markers, scale bar.
struct MapSVG {
    let layout: MapLayout
    /// Extra height below the map (the SVG file's legend).
    var footer = 0.0

    func write(into out: inout String, legend: [String] = []) {
        let view = layout.view
        let height = view.height + footer
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"map\" width=\"\(Int(view.width))\" height=\"\(Int(height))\" "
        out += "viewBox=\"0 0 \(Int(view.width)) \(Int(height))\" font-family=\"sans-serif\" font-size=\"12\">\n"
        out += "<rect width=\"\(Int(view.width))\" height=\"\(Int(height))\" fill=\"\(MapColors.background)\"/>\n"
        out += "<clipPath id=\"frame\"><rect width=\"\(Int(view.width))\" height=\"\(Int(view.height))\"/></clipPath>\n"
        out += "<g clip-path=\"url(#frame)\">\n"
        writeTiles(into: &out)
        writeUnsent(into: &out)
        writeGaps(into: &out)
        writeTracks(into: &out)
        writeStops(into: &out)
        writeEnds(into: &out)
        writeUnsentMarkers(into: &out)
        out += "</g>\n"
        writeScaleBar(into: &out)
        for (index, line) in legend.enumerated() {
            out += "<text x=\"12\" y=\"\(Int(view.height) + 20 + 18 * index)\" fill=\"#222\">\(line)</text>\n"
        }
        out += "</svg>\n"
    }

    private func writeTiles(into out: inout String) {
        for tile in layout.tiles() {
            out += "<image href=\"\(MapText.escaped(tile.url))\" x=\"\(MapText.tenth(tile.x))\" y=\"\(MapText.tenth(tile.y))\" "
            out += "width=\"\(MapText.tenth(tile.size + 0.5))\" height=\"\(MapText.tenth(tile.size + 0.5))\"/>\n"
        }
    }

    /// A wide orange band under the points not yet sent to every destination.
    private func writeUnsent(into out: inout String) {
        var path = Path()
        for (previous, point) in zip(layout.points, layout.points.dropFirst()) where point.unsent != 0 {
            if previous.unsent == 0 || previous.track != point.track || previous.flags & MapPoint.gapAfter != 0 {
                path.move(layout.pixel(point))
                path.line(layout.pixel(point))
            } else {
                path.line(layout.pixel(point), from: layout.pixel(previous))
            }
        }
        if let first = layout.points.first, first.unsent != 0, layout.points.count == 1 {
            path.move(layout.pixel(first))
            path.line(layout.pixel(first))
        }
        guard !path.text.isEmpty else { return }
        out += "<path d=\"\(path.text)\" fill=\"none\" stroke=\"\(MapColors.unsent)\" stroke-opacity=\"0.45\" stroke-width=\"11\" "
        out += "stroke-linecap=\"round\" stroke-linejoin=\"round\"/>\n"
    }

    private func writeGaps(into out: inout String) {
        guard !layout.collector.gaps.isEmpty else { return }
        out += "<g stroke=\"\(MapColors.gap)\" stroke-width=\"2.5\" stroke-dasharray=\"7 6\" fill=\"none\">\n"
        for gap in layout.collector.gaps {
            let from = layout.view.pixel(x: gap.fromX, y: gap.fromY), to = layout.view.pixel(x: gap.toX, y: gap.toY)
            out += "<line x1=\"\(MapText.tenth(from.x))\" y1=\"\(MapText.tenth(from.y))\" x2=\"\(MapText.tenth(to.x))\" y2=\"\(MapText.tenth(to.y))\">"
            out += "<title>gap: \(MapText.time(gap.from)) to \(MapText.time(gap.to)), \(MapText.duration(gap.to - gap.from))</title></line>\n"
        }
        out += "</g>\n"
    }

    /// One path per track (by track) or per speed class (by speed), broken at gaps.
    private func writeTracks(into out: inout String) {
        let bySpeed = layout.collector.options.coloring == .speed
        var paths: [Int: Path] = [:]
        var previous: MapPoint?
        for point in layout.points {
            let key = bySpeed ? MapColors.speedClass(point.speed) : Int(point.track)
            if let previous, previous.track == point.track, previous.flags & MapPoint.gapAfter == 0 {
                paths[key, default: Path()].line(layout.pixel(point), from: layout.pixel(previous))
            } else {
                paths[key, default: Path()].move(layout.pixel(point))
                paths[key, default: Path()].line(layout.pixel(point))
            }
            previous = point
        }
        for key in paths.keys.sorted() {
            let color = bySpeed ? (key < 0 ? MapColors.unknownSpeed : MapColors.speedClasses[key].color) : MapColors.track(key)
            out += "<path class=\"track\" d=\"\(paths[key]!.text)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"3\" "
            out += "stroke-linecap=\"round\" stroke-linejoin=\"round\"/>\n"
        }
    }

    private func writeStops(into out: inout String) {
        for stop in layout.collector.stops {
            let at = layout.view.pixel(x: stop.x, y: stop.y)
            out += "<circle cx=\"\(MapText.tenth(at.x))\" cy=\"\(MapText.tenth(at.y))\" r=\"6\" fill=\"\(MapColors.stop)\" stroke=\"#fff\" stroke-width=\"1.5\">"
            out += "<title>stop: \(MapText.time(stop.from)) to \(MapText.time(stop.to)), \(MapText.duration(stop.to - stop.from))</title></circle>\n"
        }
    }

    /// A green circle where each track starts, a black square where it ends.
    private func writeEnds(into out: inout String) {
        var starts: [MapPoint] = [], ends: [MapPoint] = []
        for (index, point) in layout.points.enumerated() {
            if index == 0 || layout.points[index - 1].track != point.track { starts.append(point) }
            if index == layout.points.count - 1 || layout.points[index + 1].track != point.track { ends.append(point) }
        }
        for point in ends {
            let at = layout.pixel(point)
            out += "<rect x=\"\(MapText.tenth(at.x - 4.5))\" y=\"\(MapText.tenth(at.y - 4.5))\" width=\"9\" height=\"9\" fill=\"\(MapColors.end)\" stroke=\"#fff\"/>\n"
        }
        for point in starts {
            let at = layout.pixel(point)
            out += "<circle cx=\"\(MapText.tenth(at.x))\" cy=\"\(MapText.tenth(at.y))\" r=\"5\" fill=\"\(MapColors.start)\" stroke=\"#fff\" stroke-width=\"1.5\"/>\n"
        }
    }

    /// An orange flag with the destination's name where its unsent points begin.
    private func writeUnsentMarkers(into out: inout String) {
        for (index, destination) in layout.collector.summary.unsent.enumerated() {
            guard let point = layout.firstUnsent(destination: index) else { continue }
            let at = layout.pixel(point)
            let x = MapText.tenth(at.x), y = MapText.tenth(at.y)
            out += "<path d=\"M\(x) \(y)l-7 -14h14z\" fill=\"\(MapColors.unsent)\" stroke=\"#fff\"/>"
            out += "<text x=\"\(MapText.tenth(at.x + 9))\" y=\"\(MapText.tenth(at.y - 6 - 12 * Double(index)))\" fill=\"#7a3b00\">"
            out += "unsent to \(MapText.escaped(destination.name))</text>\n"
        }
    }

    private func writeScaleBar(into out: inout String) {
        let bar = layout.view.scaleBar()
        let y = layout.view.height - 16, x = 14.0
        out += "<g id=\"scalebar\" stroke=\"#222\" stroke-width=\"2\" fill=\"none\">"
        out += "<path d=\"M\(Int(x)) \(Int(y) - 5)v5h\(MapText.tenth(bar.pixels))v-5\"/></g>"
        out += "<text x=\"\(Int(x))\" y=\"\(Int(y) - 9)\" fill=\"#222\">\(MapText.distance(bar.metres))</text>\n"
        if let tiles = layout.collector.options.tiles {
            out += "<text x=\"\(Int(layout.view.width) - 8)\" y=\"\(Int(layout.view.height) - 8)\" text-anchor=\"end\" fill=\"#222\">"
            out += "\(MapText.escaped(tiles.attribution)) (\(MapText.escaped(tiles.template)))</text>\n"
        }
    }
}

/// SVG path data, relative after each move: the file's size at about 8 bytes a point.
struct Path {
    private(set) var text = ""
    private var at: (x: Int, y: Int) = (0, 0)

    mutating func move(_ point: (x: Double, y: Double)) {
        let p = (Int((point.x * 10).rounded()), Int((point.y * 10).rounded()))
        text += "M" + Self.tenths(p.0) + " " + Self.tenths(p.1)
        at = p
    }

    /// A line to `point`; `from` starts a new piece when the path is elsewhere.
    mutating func line(_ point: (x: Double, y: Double), from: (x: Double, y: Double)? = nil) {
        if let from, (Int((from.x * 10).rounded()), Int((from.y * 10).rounded())) != at { move(from) }
        let p = (Int((point.x * 10).rounded()), Int((point.y * 10).rounded()))
        let dx = p.0 - at.0, dy = p.1 - at.1
        text += "l" + Self.tenths(dx) + (dy < 0 ? "" : " ") + Self.tenths(dy)
        at = p
    }

    static func tenths(_ value: Int) -> String {
        let sign = value < 0 ? "-" : ""
        let magnitude = value.magnitude
        return magnitude % 10 == 0 ? sign + String(magnitude / 10) : sign + String(magnitude / 10) + "." + String(magnitude % 10)
    }
}
