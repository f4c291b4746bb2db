import OverlandProtocol
import OverlandRecorder
import OverlandJSON

/// Takes the points in time order and keeps what the map needs, in bounded memory: the
/// points thinned to about a pixel (a point closer than the tolerance to the last one kept
/// is dropped unless it ends a track or a gap or starts the unsent stretch), the tracks'
/// figures, the gaps and stops. The tolerance starts below a centimetre and doubles
/// whenever more than `streamBudget` points are kept; the final view thins again
/// (`MapLayout`).
struct TrackCollector {
    let options: MapOptions
    private(set) var kept: [MapPoint] = []
    private(set) var tolerance = 1e-9
    private(set) var summary = MapSummary()
    private(set) var gaps: [MapGap] = []
    private(set) var stops: [MapStop] = []
    private(set) var devices: [String] = []
    private(set) var bounds = (minX: Double.infinity, minY: Double.infinity, maxX: -Double.infinity, maxY: -Double.infinity)
    /// Gaps and stops drawn, at most (all are counted).
    static let drawnEventLimit = 5_000

    private var pending: MapPoint?
    private var last: (latitude: Double, longitude: Double, unwrapped: Double, time: Int64, key: String)?
    private var anchor: (latitude: Double, longitude: Double, x: Double, y: Double, from: Int64, to: Int64)?

    init(options: MapOptions) {
        self.options = options
        summary.unsent = options.destinations.map { (name: $0.name, count: 0, first: Int64?.none) }
    }

    mutating func add(_ location: LocationFeature, sequence: UInt64) {
        if let device = options.device, location.deviceID != device {
            summary.otherDevice += 1
            return
        }
        if let trip = options.tripID, location.tripID != trip {
            summary.otherDevice += 1
            return
        }
        guard location.latitude.isFinite, location.longitude.isFinite, abs(location.latitude) <= 90, abs(location.longitude) <= 180 else {
            summary.invalid += 1
            return
        }
        summary.points += 1
        summary.earliest = min(summary.earliest ?? location.timestamp, location.timestamp)
        summary.latest = max(summary.latest ?? location.timestamp, location.timestamp)
        if abs(location.latitude) > Mercator.maxLatitude { summary.beyondPoles += 1 }
        var point = project(location, sequence: sequence)
        let key = location.tripID.map { "trip \($0)" } ?? Self.day(location.timestamp)
        follow(location, into: &point, key: key)
        noteStop(location, point: point)
        last = (location.latitude, location.longitude, Mercator.unwrap(location.longitude, after: last?.unwrapped), location.timestamp, key)
        commitPending()
        pending = point
        if kept.count > options.streamBudget { coarsen() }
    }

    private mutating func project(_ location: LocationFeature, sequence: UInt64) -> MapPoint {
        let longitude = Mercator.unwrap(location.longitude, after: last?.unwrapped)
        let x = Mercator.x(longitude: longitude), y = Mercator.y(latitude: location.latitude)
        bounds = (min(bounds.minX, x), min(bounds.minY, y), max(bounds.maxX, x), max(bounds.maxY, y))
        var unsent: UInt16 = 0
        for (index, destination) in options.destinations.enumerated() where sequence >= destination.next {
            summary.unsent[index].count += 1
            summary.unsent[index].first = min(summary.unsent[index].first ?? location.timestamp, location.timestamp)
            if index < 16 { unsent |= 1 << UInt16(index) }
        }
        return MapPoint(x: x, y: y, time: location.timestamp, speed: location.speed.isFinite ? Float(location.speed) : -1,
                        accuracy: Int32(clamping: location.horizontalAccuracy), track: 0, device: deviceIndex(location.deviceID),
                        unsent: unsent, flags: 0)
    }

    /// The point's track (a new one for a new day or trip), and the gap before it.
    private mutating func follow(_ location: LocationFeature, into point: inout MapPoint, key: String) {
        if let last, key == last.key, var track = summary.tracks.last {
            let apart = Geodesy.distance(latitude1: last.latitude, longitude1: last.longitude,
                                         latitude2: location.latitude, longitude2: location.longitude)
            if location.timestamp - last.time > options.gapSeconds, let before = pending {
                track.gaps += 1
                summary.gapCount += 1
                pending?.flags |= MapPoint.gapAfter | MapPoint.forced
                point.flags |= MapPoint.forced
                if gaps.count < Self.drawnEventLimit {
                    gaps.append(MapGap(from: last.time, to: location.timestamp, fromX: before.x, fromY: before.y,
                                       toX: point.x, toY: point.y, distance: apart))
                }
            } else {
                track.distance += apart
            }
            track.end = location.timestamp
            track.points += 1
            summary.tracks[summary.tracks.count - 1] = track
        } else {
            pending?.flags |= MapPoint.forced
            point.flags |= MapPoint.trackStart | MapPoint.forced
            summary.tracks.append(MapTrack(name: key, start: location.timestamp, end: location.timestamp, points: 1))
        }
        point.track = Int32(summary.tracks.count - 1)
        if let pending, pending.unsent != point.unsent {
            self.pending?.flags |= MapPoint.forced
            point.flags |= MapPoint.forced
        }
    }

    /// A stop: within the radius of where the vehicle came to rest for the stop time.
    private mutating func noteStop(_ location: LocationFeature, point: MapPoint) {
        if let current = anchor, Geodesy.distance(latitude1: current.latitude, longitude1: current.longitude,
                                                  latitude2: location.latitude, longitude2: location.longitude) <= options.stopRadius {
            anchor?.to = location.timestamp
            return
        }
        closeStop()
        anchor = (location.latitude, location.longitude, point.x, point.y, location.timestamp, location.timestamp)
    }

    private mutating func closeStop() {
        guard let anchor, anchor.to - anchor.from >= options.stopSeconds else { return }
        summary.stopCount += 1
        if stops.count < Self.drawnEventLimit { stops.append(MapStop(from: anchor.from, to: anchor.to, x: anchor.x, y: anchor.y)) }
    }

    /// Keeps the pending point if it is forced or a tolerance away from the last kept.
    private mutating func commitPending() {
        guard let point = pending else { return }
        if point.flags & MapPoint.forced != 0 || Self.apart(point, kept.last, tolerance) { kept.append(point) }
    }

    /// The stream's end: the last point is a track's end.
    mutating func finish() {
        if var point = pending {
            point.flags |= MapPoint.forced
            kept.append(point)
            pending = nil
        }
        closeStop()
    }

    /// Doubles the tolerance and thins what is kept.
    private mutating func coarsen() {
        tolerance *= 2
        kept = Self.thin(kept, tolerance: tolerance)
    }

    static func thin(_ points: [MapPoint], tolerance: Double) -> [MapPoint] {
        var result: [MapPoint] = []
        result.reserveCapacity(points.count / 2)
        for point in points where point.flags & MapPoint.forced != 0 || apart(point, result.last, tolerance) {
            result.append(point)
        }
        return result
    }

    static func apart(_ point: MapPoint, _ previous: MapPoint?, _ tolerance: Double) -> Bool {
        guard let previous, previous.track == point.track else { return true }
        let dx = point.x - previous.x, dy = point.y - previous.y
        return dx * dx + dy * dy >= tolerance * tolerance
    }

    private mutating func deviceIndex(_ id: String) -> Int32 {
        if let index = devices.lastIndex(of: id) { return Int32(index) }
        guard devices.count < 64 else { return Int32(devices.count - 1) }
        devices.append(id)
        return Int32(devices.count - 1)
    }

    /// The UTC day of `time`: 2026-11-21.
    static func day(_ time: Int64) -> String { String(ISO8601UTC.string(from: time).prefix(10)) }
}

extension TrackCollector {
    mutating func record(records: Int, outOfOrder: Int, skippedIssues: Int) {
        summary.records = records
        summary.skippedIssues = skippedIssues
        summary.outOfOrder = outOfOrder
    }
}
