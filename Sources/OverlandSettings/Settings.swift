import OverlandProtocol

/// Every setting of the three commands, with the phone app's defaults (protocol section 9)
/// and this project's additions.
public struct Settings: Sendable, Equatable {
    // MARK: The protocol's settings

    /// The receiver's URL, http or https, possibly with `%TS`-style templates; nil = not set.
    public var endpoint: String?
    /// The access token sent as `Authorization: Bearer`; nil = none.
    public var token: String?
    /// The device id sent in every point (1 to 50 characters); nil = not set.
    public var deviceID: String?
    /// How often waiting points are sent; default 5m.
    public var sendInterval: SendInterval = .fiveMinutes
    /// Whether points are recorded at all; default on.
    public var trackingEnabled = true
    /// The mode of the next trip (the last one used); default car.
    public var tripMode: TripMode = .car
    /// The network that pins the location to a fixed point; default none.
    public var wifiZone: WifiZone?
    /// Whether points carry the tracking stats (`pauses`, `activity`...); default off.
    public var includeTrackingStats = false
    /// Whether any 2xx reply counts as delivered, without `{"result":"ok"}`; default off.
    public var consider2xxSuccessful = false
    /// Whether points carry `unique_id`; default off.
    public var includeUniqueID = false
    /// Kept for parity with the phone app; has no effect beyond messages on stderr. Default off.
    public var notifications = false
    /// The main profile and the keys only it has (`main` in the file and in `set`).
    public var main = MainProfile()
    /// The profile in force while a trip runs (`trip` in the file and in `set`).
    public var trip = TripProfile()

    // MARK: This project's additions

    /// The journal directory (absolute); nil = the XDG default.
    public var journal: String?
    /// Seconds records may wait in memory before a commit, 0...3600; 0 commits every point. Default 5.
    public var commitInterval: Double = 5
    /// Days sent segments are kept, 0...3650; 0 deletes them at once. Default 7.
    public var retentionDays = 7
    /// A PEM file of certificate authorities to trust instead of the system's (absolute); nil = system.
    public var caFile: String?
    /// Whether speed and the accuracies are sent as whole numbers, for receivers such as
    /// Wayfinder that drop points with fractions; default off. The same as the `wayfinder`
    /// profile, kept for settings files that have it: applied when points are sent, to
    /// points logged before it was turned on too.
    public var integerSpeed = false
    /// Whether a device standing still logs one point instead of the receiver's drift (a
    /// parked receiver wanders a few metres); default off.
    public var stationaryFilter = false
    /// Whether each run reads back what the default destination's receiver stored; default off.
    public var verify = false
    /// Where reading back asks, instead of the address derived from the endpoint.
    public var verifyURL: String?
    /// The credentials for reading back, when they differ from the token; never shown.
    public var verifyToken: String?
    /// The receiver's quirks applied when points are sent; default none.
    public var receiverProfile = ReceiverProfile.none
    /// The protocol the receiver speaks; default overland.
    public var wireProtocol = WireProtocol.overland
    /// A `/sys/class/power_supply/NAME` directory to read the battery from (absolute);
    /// nil = detect.
    public var batteryPath: String?

    /// Creates settings holding every default.
    public init() {}

    /// Every default.
    public static let defaults = Settings()

    /// The receiver profile the sync applies: `profile`, else `wayfinder` when
    /// `integer_speed` is on.
    public var effectiveReceiverProfile: ReceiverProfile {
        if receiverProfile == .none, integerSpeed { return .wayfinder }
        return receiverProfile
    }

    /// The profile in force: the trip's while a trip runs, otherwise the main one.
    public func profile(duringTrip: Bool) -> Profile {
        duringTrip ? trip.profile : main.profile
    }
}
