#if canImport(Glibc)
import Glibc
#endif

/// The collected points in the fitted view: thinned to the page's resolution (a point
/// less than `pixelTolerance` from the last one drawn is left out, unless it ends a track
/// or a gap or starts the unsent stretch: every gap, stop and turn that shows at this size
/// stays), and further, by doubling the tolerance, until at most `drawBudget` remain.
struct MapLayout {
    static let pixelTolerance = 1.0

    let view: MapView
    let points: [MapPoint]
    let collector: TrackCollector
    let pixelTolerance: Double

    init(collector: TrackCollector) {
        let options = collector.options
        let bounds = collector.bounds
        view = MapView.fit(minX: bounds.minX, minY: bounds.minY, maxX: bounds.maxX, maxY: bounds.maxY,
                           width: options.width, height: options.height)
        var tolerance = Self.pixelTolerance
        var points = TrackCollector.thin(collector.kept, tolerance: tolerance / view.scale)
        while points.count > options.drawBudget {
            tolerance *= 2
            points = TrackCollector.thin(points, tolerance: tolerance / view.scale)
        }
        self.points = points
        self.collector = collector
        pixelTolerance = tolerance
    }

    func pixel(_ point: MapPoint) -> (x: Double, y: Double) { view.pixel(x: point.x, y: point.y) }

    /// Each destination's first unsent point in time (its marker).
    func firstUnsent(destination index: Int) -> MapPoint? {
        guard index < 16 else { return nil }
        return points.first { $0.unsent & (1 << UInt16(index)) != 0 }
    }

    /// The tiles that cover the view at the zoom closest to its scale, at most 64.
    func tiles() -> [(url: String, x: Double, y: Double, size: Double)] {
        guard let template = collector.options.tiles else { return [] }
        let zoom = max(0, min(19, Int((log2(view.scale / 256)).rounded())))
        let count = 1 << zoom
        let size = view.scale / Double(count)
        let firstX = Int(floor(view.originX * Double(count))), lastX = Int(floor((view.originX + view.width / view.scale) * Double(count)))
        let firstY = max(0, Int(floor(view.originY * Double(count))))
        let lastY = min(count - 1, Int(floor((view.originY + view.height / view.scale) * Double(count))))
        var tiles: [(url: String, x: Double, y: Double, size: Double)] = []
        guard firstY <= lastY else { return [] }
        for ty in firstY...lastY {
            for tx in firstX...max(firstX, lastX) where tiles.count < 64 {
                let wrapped = ((tx % count) + count) % count
                let origin = view.pixel(x: Double(tx) / Double(count), y: Double(ty) / Double(count))
                tiles.append((template.url(z: zoom, x: wrapped, y: ty), origin.x, origin.y, size))
            }
        }
        return tiles
    }
}
