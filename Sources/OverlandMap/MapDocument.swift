/// The file: an HTML page (the picture, the legend, the tables, hover) or the picture alone
/// as SVG with its legend underneath. Nothing in either asks for anything from anywhere:
/// the page's Content-Security-Policy forbids every request but the basemap's tiles when
/// `--tiles` gave some.
struct MapDocument {
    let layout: MapLayout
    let nonce: String

    func svg() -> String {
        let legend = MapLegend(layout: layout).lines()
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        var picture = MapSVG(layout: layout)
        picture.footer = Double(12 + 18 * legend.count)
        picture.write(into: &out, legend: [MapText.escaped(layout.collector.options.title)] + legend)
        return out
    }

    /// `default-src 'none'`: no request at all, but the inline style, the one script of this
    /// page (by its nonce) and, with a basemap, images from the tile server's origin.
    var contentSecurityPolicy: String {
        var images = "data:"
        if let tiles = layout.collector.options.tiles { images += " " + tiles.origin }
        return "default-src 'none'; style-src 'unsafe-inline'; img-src \(images); script-src 'nonce-\(nonce)'; "
            + "base-uri 'none'; form-action 'none'"
    }

    func html() -> String {
        let legend = MapLegend(layout: layout)
        let title = MapText.escaped(layout.collector.options.title)
        var out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        out += "<meta http-equiv=\"Content-Security-Policy\" content=\"\(contentSecurityPolicy)\">\n"
        out += "<meta name=\"referrer\" content=\"no-referrer\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>\(title)</title>\n"
        out += "<style>\(MapScript.css)</style></head>\n<body>\n<div id=\"frame\">"
        MapSVG(layout: layout).write(into: &out)
        out += "<div id=\"tip\" hidden></div></div>\n<section id=\"legend\"><h1>\(title)</h1>\n"
        for line in legend.lines() { out += "<p>\(line)</p>\n" }
        out += legend.key()
        out += "<p class=\"hint\">Hover or tap the track for a point's time, speed, accuracy and device.</p>\n"
        out += legend.trackTable()
        out += legend.gapTable()
        out += "</section>\n<script type=\"application/json\" id=\"points\">"
        out += pointData()
        out += "</script>\n<script nonce=\"\(nonce)\">\(MapScript.javascript)</script>\n</body></html>\n"
        return out
    }

    /// The drawn points for hover, as deltas: `{"t0", "tracks", "devices", "p": [dx, dy, dt,
    /// speed (km/h, -1 unknown), accuracy (m, -1 unknown), …], "runs": [index, track, device, …]}`,
    /// x and y in tenths of a pixel.
    func pointData() -> String {
        let collector = layout.collector
        var out = "{\"t0\":\(layout.points.first?.time ?? 0),\"tracks\":["
        out += collector.summary.tracks.map { MapText.jsonString($0.name) }.joined(separator: ",")
        out += "],\"devices\":[" + collector.devices.map { MapText.jsonString($0) }.joined(separator: ",") + "],\"p\":["
        var previous = (x: 0, y: 0, t: layout.points.first?.time ?? 0)
        var runs: [String] = []
        var run = (track: Int32(-1), device: Int32(-1))
        for (index, point) in layout.points.enumerated() {
            let at = layout.pixel(point)
            let x = Int((at.x * 10).rounded()), y = Int((at.y * 10).rounded())
            let speed = point.speed < 0 ? -1 : Int((Double(point.speed) * 3.6).rounded())
            if index > 0 { out += "," }
            out += "\(x - previous.x),\(y - previous.y),\(point.time - previous.t),\(speed),\(point.accuracy < 0 ? -1 : Int(point.accuracy))"
            previous = (x, y, point.time)
            if (point.track, point.device) != run {
                run = (point.track, point.device)
                runs.append("\(index),\(point.track),\(point.device)")
            }
        }
        return out + "],\"runs\":[" + runs.joined(separator: ",") + "]}"
    }
}
