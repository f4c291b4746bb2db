import OverlandInput
import OverlandProtocol

/// Turns fixes into Overland location points: applies the tracking mode and the filters,
/// then builds the Feature with the device's metadata. A value: the caller owns I/O.
public struct Recorder: Sendable {
    public var configuration: RecorderConfiguration {
        didSet { configure() }
    }
    public private(set) var statistics = Statistics()
    private var lastPoint: Fix?
    private var pause = PauseDetector()
    private var visits = VisitDetector()

    /// What a fix led to, besides (or instead of) a point.
    public enum Event: Sendable, Equatable {
        case point(LocationFeature)
        /// Auto-pause began: points stop until the device moves away.
        case paused(at: Int64, latitude: Double, longitude: Double)
        /// Updates resumed; `exitedRegion` when a geofence radius was set.
        case resumed(at: Int64, exitedRegion: Bool)
        case visit(latitude: Double, longitude: Double, arrival: Int64, departure: Int64?)
    }

    /// What the filters did.
    public struct Statistics: Sendable, Equatable {
        public var fixes = 0
        public var points = 0
        public var droppedTrackingOff = 0
        public var droppedInterval = 0
        public var droppedDistance = 0
        public var droppedAccuracy = 0
        public var droppedOutOfOrder = 0
        public var droppedNotSignificant = 0
        public var droppedPaused = 0
        /// Fixes of a second the journal already holds a point for (a capture imported again).
        public var droppedAlreadyLogged = 0
        /// Fixes of a device standing still (the stationary filter).
        public var droppedStationary = 0
        /// Fixes of the second of the previous fix (a receiver at 5-10 Hz): timestamps have
        /// whole seconds, so one point a second at most.
        public var droppedSameSecond = 0
        /// Values of logged points out of range for every receiver, left out (``PointMeasures``).
        public var valuesLeftOut = 0
    }

    public init(configuration: RecorderConfiguration) {
        self.configuration = configuration
        configure()
    }

    private mutating func configure() {
        pause.resumeRadius = configuration.resumeRadius ?? 50
    }

    /// Everything a fix leads to: pause and resume, visits, and its point if the filters
    /// keep it. `payloadSize` is how many fixes arrived in the same read (a tracking stat).
    public mutating func process(_ fix: Fix, device: DeviceSnapshot, payloadSize: Int = 1) -> [Event] {
        var events: [Event] = []
        let usable = configuration.trackingMode != .off
            && !(configuration.accuracyGate.map { gate in (fix.horizontalAccuracy ?? 0) > gate } ?? false)
        if usable && configuration.visitTracking,
           let visit = visits.observe(time: fix.time, latitude: fix.latitude, longitude: fix.longitude, speed: fix.speed) {
            events.append(.visit(latitude: visit.latitude, longitude: visit.longitude, arrival: visit.arrival, departure: visit.departure))
        }
        if usable && configuration.pauseAutomatically {
            switch pause.observe(time: fix.time, latitude: fix.latitude, longitude: fix.longitude) {
            case .paused(let time):
                statistics.fixes += 1
                statistics.droppedPaused += 1
                events.append(.paused(at: time, latitude: fix.latitude, longitude: fix.longitude))
                return events
            case .resumed(let time):
                events.append(.resumed(at: time, exitedRegion: configuration.resumeRadius != nil))
            case nil where pause.isPaused:
                statistics.fixes += 1
                statistics.droppedPaused += 1
                return events
            case nil:
                break
            }
        }
        if var point = point(for: fix, device: device) {
            point.trackingStats?.locationsInPayload = payloadSize
            events.append(.point(point))
        }
        return events
    }

    /// Notes a fix the journal already holds a point for: no point, no event, but later
    /// fixes are filtered against it as if it had just been logged (so an overlapping
    /// capture adds what is new at the same minimum interval and distance).
    public mutating func noteAlreadyLogged(_ fix: Fix) {
        statistics.fixes += 1
        statistics.droppedAlreadyLogged += 1
        if lastPoint.map({ fix.time >= $0.time }) ?? true { lastPoint = fix }
    }

    /// Whether `fix` falls in the second of the previous fix (logged or already in the
    /// journal): a receiver at 5-10 Hz sends several, and a point has whole seconds.
    public func isSameSecondAsPrevious(_ fix: Fix) -> Bool {
        lastPoint?.time == fix.time
    }

    /// Notes a fix of the second of the previous fix, as the filters would drop it: for
    /// callers that skip the filters (a second the journal holds).
    public mutating func noteSameSecond(_ fix: Fix) {
        statistics.fixes += 1
        statistics.droppedSameSecond += 1
    }

    /// Forgets the last point, as at the start of an unrelated stream (a new input file).
    public mutating func startNewStream() {
        lastPoint = nil
    }

    /// The point for `fix`, or nil when a filter drops it.
    public mutating func point(for fix: Fix, device: DeviceSnapshot) -> LocationFeature? {
        statistics.fixes += 1
        guard accepts(fix) else { return nil }
        lastPoint = fix
        statistics.points += 1
        let measures = PointMeasures(fix)
        statistics.valuesLeftOut += measures.leftOut
        return Self.feature(for: fix, measures: measures, device: device, configuration: configuration)
    }

    private mutating func accepts(_ fix: Fix) -> Bool {
        if configuration.trackingMode == .off {
            statistics.droppedTrackingOff += 1
            return false
        }
        if let gate = configuration.accuracyGate, let accuracy = fix.horizontalAccuracy, accuracy > gate {
            statistics.droppedAccuracy += 1
            return false
        }
        guard let last = lastPoint else { return true }
        if fix.time < last.time {
            statistics.droppedOutOfOrder += 1
            return false
        }
        // Timestamps are whole seconds and some receivers treat them as unique: never two
        // points in one second, whatever the minimum interval.
        if fix.time == last.time {
            statistics.droppedSameSecond += 1
            return false
        }
        if fix.time - last.time < configuration.minimumInterval {
            statistics.droppedInterval += 1
            return false
        }
        let moved = Geodesy.distance(latitude1: last.latitude, longitude1: last.longitude,
                                     latitude2: fix.latitude, longitude2: fix.longitude)
        if let minimum = configuration.minimumDistance, moved < minimum {
            statistics.droppedDistance += 1
            return false
        }
        if configuration.trackingMode == .significant && moved < configuration.significantChangeMetres {
            statistics.droppedNotSignificant += 1
            return false
        }
        if configuration.stationaryFilter && Self.isStill(fix, movedMetres: moved) {
            statistics.droppedStationary += 1
            return false
        }
        return true
    }

    /// Speed used when a fix states no speed accuracy (NMEA): the stationary threshold of
    /// ``MotionClassifier``, 0.5 m/s; distance when it states no horizontal accuracy: 10 m.
    static let defaultSpeedAccuracy = 0.5
    static let defaultHorizontalAccuracy = 10.0

    /// Whether `fix` is indistinguishable from standing still at the last point: its speed
    /// within its speed accuracy (no speed: still, as far as speed tells), and its distance
    /// from the last point within its horizontal accuracy. The last point stays the anchor,
    /// so a slow drift is logged once it adds up beyond the accuracy.
    static func isStill(_ fix: Fix, movedMetres: Double) -> Bool {
        let speedLimit = fix.speedAccuracy.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? defaultSpeedAccuracy
        let distanceLimit = fix.horizontalAccuracy.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? defaultHorizontalAccuracy
        return (fix.speed ?? 0) <= speedLimit && movedMetres <= distanceLimit
    }

    /// Builds the Feature: every key the protocol requires, in its type. Unknown values are
    /// -1 (altitude, which has no "unknown", is 0 with a vertical accuracy of -1); values
    /// out of range are left out as ``PointMeasures`` says.
    public static func feature(for fix: Fix, device: DeviceSnapshot, configuration: RecorderConfiguration) -> LocationFeature {
        feature(for: fix, measures: PointMeasures(fix), device: device, configuration: configuration)
    }

    private static func feature(for fix: Fix, measures: PointMeasures, device: DeviceSnapshot,
                                configuration: RecorderConfiguration) -> LocationFeature {
        // Connected to the Wi-Fi zone's network: report its fixed position.
        let zone = configuration.wifiZone.flatMap { $0.ssid == device.wifi ? $0 : nil }
        return LocationFeature(
            longitude: zone?.longitude ?? fix.longitude,
            latitude: zone?.latitude ?? fix.latitude,
            timestamp: fix.time,
            altitude: measures.altitude,
            speed: measures.speed,
            course: measures.course,
            horizontalAccuracy: measures.horizontalAccuracy,
            verticalAccuracy: measures.verticalAccuracy,
            speedAccuracy: measures.speedAccuracy,
            courseAccuracy: measures.courseAccuracy,
            motion: MotionClassifier.motion(forSpeed: measures.speed >= 0 ? measures.speed : nil),
            batteryState: device.batteryState,
            batteryLevel: device.batteryLevel,
            wifi: device.wifi,
            deviceID: configuration.deviceID,
            uniqueID: configuration.uniqueID,
            tripID: configuration.tripID(at: fix.time),
            trackingStats: configuration.trackingStats
        )
    }
}
