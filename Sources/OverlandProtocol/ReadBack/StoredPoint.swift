/// One point a receiver holds, as its read API answers it: the second, the position, and
/// the device when the answer names one (nil when the query itself named the device).
public struct StoredPoint: Sendable, Equatable {
    /// Unix seconds (the fix's own second; Home Assistant: when it recorded the state).
    public var time: Int64
    public var latitude: Double
    public var longitude: Double
    /// The device the receiver filed it under, when the answer says.
    public var device: String?

    public init(time: Int64, latitude: Double, longitude: Double, device: String? = nil) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.device = device
    }

    /// Two positions are the same point within this many degrees (about 0.1 m).
    public static let tolerance = 1e-6

    /// Whether this is the position `latitude`, `longitude` (within `tolerance`).
    public func isAt(latitude: Double, longitude: Double) -> Bool {
        abs(self.latitude - latitude) <= Self.tolerance && abs(self.longitude - longitude) <= Self.tolerance
    }
}

/// One page of a read-back answer.
public struct ReadBackPage: Sendable, Equatable {
    public var points: [StoredPoint]
    /// Whether the receiver has another page for the same range.
    public var hasMore: Bool

    public init(points: [StoredPoint], hasMore: Bool = false) {
        self.points = points
        self.hasMore = hasMore
    }
}

/// Why a receiver's answer could not be read: one lower-case line. `isConfiguration`:
/// waiting will not fix it (an answer that is not what the reader reads: the wrong
/// verify_url, profile or entity), the user must set something.
public struct ReadBackError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public let isConfiguration: Bool
    public init(_ description: String, isConfiguration: Bool = false) {
        self.description = description
        self.isConfiguration = isConfiguration
    }
}
