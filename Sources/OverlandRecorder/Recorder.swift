import OverlandNMEA
import OverlandProtocol

/// Turns fixes into Overland location points: applies the tracking mode and the filters,
/// then builds the Feature with the device's metadata. A value: the caller owns I/O.
public struct Recorder: Sendable {
    public var configuration: RecorderConfiguration
    public private(set) var statistics = Statistics()
    private var lastPoint: Fix?

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
    }

    public init(configuration: RecorderConfiguration) {
        self.configuration = configuration
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
        return Self.feature(for: fix, device: device, configuration: configuration)
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
        if fix.time - last.time < max(configuration.minimumInterval, 1) {
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
        return true
    }

    /// Builds the Feature: every key the protocol requires, in its type. Unknown values are
    /// -1 (altitude, which has no "unknown", is 0 with a vertical accuracy of -1).
    public static func feature(for fix: Fix, device: DeviceSnapshot, configuration: RecorderConfiguration) -> LocationFeature {
        func whole(_ value: Double?) -> Int {
            guard let value, value.isFinite, value >= 0 else { return -1 }
            return Int(value.rounded())
        }
        let course = fix.course.flatMap { $0.isFinite && $0 >= 0 ? Int($0.rounded()) % 360 : nil } ?? -1
        return LocationFeature(
            longitude: fix.longitude,
            latitude: fix.latitude,
            timestamp: fix.time,
            altitude: fix.altitude.flatMap { $0.isFinite ? Int($0.rounded()) : nil } ?? 0,
            speed: fix.speed.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } ?? -1,
            course: course,
            horizontalAccuracy: whole(fix.horizontalAccuracy),
            verticalAccuracy: fix.altitude == nil ? -1 : whole(fix.verticalAccuracy),
            speedAccuracy: fix.speedAccuracy.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } ?? -1,
            courseAccuracy: fix.courseAccuracy.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } ?? -1,
            motion: MotionClassifier.motion(forSpeed: fix.speed),
            batteryState: device.batteryState,
            batteryLevel: device.batteryLevel,
            wifi: device.wifi,
            deviceID: configuration.deviceID,
            uniqueID: configuration.uniqueID,
            tripID: configuration.tripID
        )
    }
}
