/// The legend's lines (time span and counts) and the tables of tracks and gaps: the same
/// words in the HTML page and under the SVG picture.
struct MapLegend {
    let layout: MapLayout
    var summary: MapSummary { layout.collector.summary }

    /// Plain lines (escaped for markup).
    func lines() -> [String] {
        var lines: [String] = []
        if let earliest = summary.earliest, let latest = summary.latest {
            lines.append("\(MapText.time(earliest)) to \(MapText.time(latest)) (UTC, \(MapText.duration(latest - earliest)))")
        }
        let distance = summary.tracks.reduce(0) { $0 + $1.distance }
        lines.append("\(MapText.count(summary.points, "point")) (\(layout.points.count) drawn), "
                     + "\(MapText.count(summary.tracks.count, "track")), \(MapText.distance(distance)), "
                     + "\(MapText.count(summary.gapCount, "gap")), \(MapText.count(summary.stopCount, "stop"))")
        for destination in summary.unsent {
            var line = "unsent to \(MapText.escaped(destination.name)): \(MapText.count(destination.count, "point"))"
            if let first = destination.first { line += " from \(MapText.time(first))" }
            lines.append(line)
        }
        var notes: [String] = []
        if summary.skippedIssues > 0 { notes.append("\(MapText.count(summary.skippedIssues, "damaged stretch", plural: "damaged stretches")) of the journal skipped") }
        if summary.invalid > 0 { notes.append("\(MapText.count(summary.invalid, "point")) with a position out of range left out") }
        if summary.beyondPoles > 0 { notes.append("\(MapText.count(summary.beyondPoles, "point")) beyond 85.05° drawn at the map's edge") }
        if summary.outOfOrder > 0 { notes.append("\(MapText.count(summary.outOfOrder, "point")) logged after later ones, drawn in time order") }
        if !notes.isEmpty { lines.append(notes.joined(separator: "; ")) }
        lines.append("gaps: no point for over \(MapText.duration(layout.collector.options.gapSeconds)); stops: within "
                     + "\(Int(layout.collector.options.stopRadius)) m for \(MapText.duration(layout.collector.options.stopSeconds)) or more")
        return lines
    }

    /// The HTML key: what each mark means.
    func key() -> String {
        var out = "<ul class=\"key\">"
        out += "<li><svg width=\"14\" height=\"14\"><circle cx=\"7\" cy=\"7\" r=\"5\" fill=\"\(MapColors.start)\"/></svg> start</li>"
        out += "<li><svg width=\"14\" height=\"14\"><rect x=\"2\" y=\"2\" width=\"9\" height=\"9\" fill=\"\(MapColors.end)\"/></svg> end</li>"
        out += "<li><svg width=\"30\" height=\"14\"><line x1=\"0\" y1=\"7\" x2=\"30\" y2=\"7\" stroke=\"\(MapColors.gap)\" stroke-width=\"2.5\" stroke-dasharray=\"7 6\"/></svg> gap</li>"
        out += "<li><svg width=\"14\" height=\"14\"><circle cx=\"7\" cy=\"7\" r=\"6\" fill=\"\(MapColors.stop)\"/></svg> stop</li>"
        out += "<li><svg width=\"30\" height=\"14\"><line x1=\"0\" y1=\"7\" x2=\"30\" y2=\"7\" stroke=\"\(MapColors.unsent)\" stroke-opacity=\"0.45\" stroke-width=\"11\"/></svg> not yet sent</li>"
        if layout.collector.options.coloring == .speed {
            for speed in MapColors.speedClasses {
                out += "<li><svg width=\"30\" height=\"14\"><line x1=\"0\" y1=\"7\" x2=\"30\" y2=\"7\" stroke=\"\(speed.color)\" stroke-width=\"3\"/></svg> \(speed.label)</li>"
            }
        }
        return out + "</ul>\n"
    }

    func trackTable() -> String {
        var out = "<table id=\"tracks\"><thead><tr><th>day or trip</th><th>start</th><th>end</th><th>duration</th>"
        out += "<th>distance</th><th>points</th><th>gaps</th></tr></thead><tbody>\n"
        for (index, track) in summary.tracks.enumerated() {
            let color = layout.collector.options.coloring == .track ? MapColors.track(index) : "#888"
            out += "<tr><td><span class=\"sw\" style=\"background:\(color)\"></span>\(MapText.escaped(track.name))</td>"
            out += "<td>\(MapText.time(track.start))</td><td>\(MapText.time(track.end))</td><td>\(MapText.duration(track.end - track.start))</td>"
            out += "<td>\(MapText.distance(track.distance))</td><td>\(track.points)</td><td>\(track.gaps)</td></tr>\n"
        }
        return out + "</tbody></table>\n"
    }

    /// The gaps, the first `limit` of them.
    func gapTable(limit: Int = 200) -> String {
        let gaps = layout.collector.gaps
        guard !gaps.isEmpty else { return "<p>No gaps.</p>\n" }
        var out = "<table id=\"gaps\"><thead><tr><th>gap from</th><th>to</th><th>no point for</th><th>moved</th></tr></thead><tbody>\n"
        for gap in gaps.prefix(limit) {
            out += "<tr><td>\(MapText.time(gap.from))</td><td>\(MapText.time(gap.to))</td>"
            out += "<td>\(MapText.duration(gap.to - gap.from))</td><td>\(MapText.distance(gap.distance))</td></tr>\n"
        }
        out += "</tbody></table>\n"
        if summary.gapCount > min(limit, gaps.count) { out += "<p>and \(summary.gapCount - min(limit, gaps.count)) more gaps.</p>\n" }
        return out
    }
}
