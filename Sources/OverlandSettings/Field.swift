import OverlandJSON
import OverlandProtocol

/// One setting: where it lives in the file, how it reads and writes, what it allows.
///
/// `Field.all` is the single table behind the settings file, `SettingKey`, a server's
/// `set` and `Settings.differences(from:)`; its order is the file's order.
struct Field: Sendable {
    /// The object of the file that holds the key.
    enum Section: Sendable, Equatable {
        case top, main, trip
        /// A member of the `wifi_zone` object: only a command-line key (`wifi_zone.ssid`);
        /// the file holds the whole zone under the top-level `wifi_zone`.
        case wifiZone
    }

    let section: Section
    /// The member name inside its section, as in the protocol: "batch_size".
    let key: String
    let summary: String
    let allowed: String
    /// Whether null is allowed in the file (the setting is optional).
    let nullable: Bool
    /// Whether a server's `set` may change it (protocol section 7).
    let remote: Bool
    let current: @Sendable (Settings) -> JSONValue
    let display: @Sendable (Settings) -> String
    /// Stores the value `json` stands for; false when it is refused.
    let assign: @Sendable (inout Settings, JSONValue) -> Bool
    let parse: @Sendable (String) -> JSONValue
    let reset: @Sendable (inout Settings) -> Void

    init<Value>(
        _ section: Section, _ key: String, _ path: WritableKeyPath<Settings, Value> & Sendable,
        _ codec: Codec<Value>, nullable: Bool = false, remote: Bool = false, _ summary: String
    ) {
        self.section = section
        self.key = key
        self.summary = summary
        self.allowed = codec.allowed
        self.nullable = nullable
        self.remote = remote
        current = { codec.encode($0[keyPath: path]) }
        display = { codec.format($0[keyPath: path]) }
        assign = { settings, json in
            guard let value = codec.decode(json) else { return false }
            settings[keyPath: path] = value
            return true
        }
        parse = codec.parse
        reset = { $0[keyPath: path] = Settings.defaults[keyPath: path] }
    }

    init(
        wifiZoneMember key: String, allowed: String, _ summary: String,
        current: @escaping @Sendable (WifiZone) -> JSONValue,
        assign: @escaping @Sendable (inout WifiZone, JSONValue) -> Bool,
        parse: @escaping @Sendable (String) -> JSONValue
    ) {
        section = .wifiZone
        self.key = key
        self.summary = summary
        self.allowed = allowed
        nullable = false
        remote = false
        self.current = { settings in settings.wifiZone.map(current) ?? .null }
        display = { settings in settings.wifiZone.map { JSONText.plain(current($0)) } ?? "" }
        self.assign = { settings, json in
            guard var zone = settings.wifiZone, assign(&zone, json) else { return false }
            settings.wifiZone = zone
            return true
        }
        self.parse = parse
        // A zone is all three values or none: resetting one member removes the zone.
        reset = { $0.wifiZone = nil }
    }

    /// The command-line name: "send_interval", "batch_size" (main), "trip.batch_size",
    /// "wifi_zone.ssid".
    var name: String {
        switch section {
        case .top, .main: key
        case .trip: "trip." + key
        case .wifiZone: "wifi_zone." + key
        }
    }

    /// The place in the file: "send_interval", "main.batch_size", "trip.batch_size".
    var filePath: String {
        switch section {
        case .top: key
        case .main: "main." + key
        case .trip: "trip." + key
        case .wifiZone: "wifi_zone." + key
        }
    }

    /// The allowed values as a file or a server sees them.
    var allowedInJSON: String {
        nullable ? allowed + ", or null" : allowed
    }

    /// Whether the setting holds its default.
    func isDefault(in settings: Settings) -> Bool {
        current(settings) == current(Settings.defaults)
    }
}

extension Field {
    /// Every setting, in the file's order.
    static let all: [Field] = protocolFields + mainFields + tripFields + projectFields + wifiZoneMembers

    /// The fields of `section`, in order.
    static func fields(in section: Section) -> [Field] {
        all.filter { $0.section == section }
    }

    /// The field of `section` named `key` in the file.
    static func field(in section: Section, key: String) -> Field? {
        all.first { $0.section == section && $0.key == key }
    }

    private static let protocolFields: [Field] = [
        Field(.top, "endpoint", \.endpoint,
              .optionalText(allowed: Validation.endpointAllowed, validate: Validation.endpoint), nullable: true,
              "the receiver's url; %TS, %LAT, %LON, %SPD, %ACC, %ALT and %BAT are replaced"),
        Field(.top, "token", \.token,
              .optionalText(allowed: Validation.tokenAllowed, validate: Validation.token), nullable: true,
              "the access token, sent as a bearer token"),
        Field(.top, "device_id", \.deviceID,
              .optionalText(allowed: Validation.deviceIDAllowed, validate: Validation.deviceID), nullable: true,
              "the device id sent in every point"),
        Field(.top, "send_interval", \.sendInterval, .intervalChoice(SendInterval.self), remote: true,
              "how often waiting points are sent; off never sends"),
        Field(.top, "tracking_enabled", \.trackingEnabled, .bool,
              "whether points are recorded at all"),
        Field(.top, "trip_mode", \.tripMode, .choice(TripMode.self), remote: true,
              "the mode of the next trip (the last one used)"),
        Field(.top, "wifi_zone", \.wifiZone, .wifiZone, nullable: true,
              "a network whose connection pins the location to a fixed point"),
        Field(.top, "include_tracking_stats", \.includeTrackingStats, .bool,
              "whether points carry tracking stats (pauses, activity, desired accuracy...)"),
        Field(.top, "consider_2xx_successful", \.consider2xxSuccessful, .bool,
              "whether any 2xx reply counts as delivered (can lose data)"),
        Field(.top, "include_unique_id", \.includeUniqueID, .bool,
              "whether points carry unique_id"),
        Field(.top, "notifications", \.notifications, .bool,
              "kept for parity with the phone app; no effect beyond messages on stderr"),
    ]

    private static let mainFields: [Field] = [
        Field(.main, "tracking_mode", \.main.trackingMode, .choice(TrackingMode.self), remote: true,
              "which location service runs"),
        Field(.main, "visit_tracking", \.main.visitTracking, .bool, remote: true,
              "whether visits are recorded"),
        Field(.main, "desired_accuracy", \.main.profile.desiredAccuracy, .choice(DesiredAccuracy.self), remote: true,
              "how accurate positions should be"),
        Field(.main, "activity_type", \.main.profile.activityType, .choice(ActivityType.self), remote: true,
              "what the device is used for"),
        Field(.main, "background_indicator", \.main.profile.backgroundIndicator, .bool, remote: true,
              "whether running in the background is shown"),
        Field(.main, "pause_automatically", \.main.pauseAutomatically, .bool, remote: true,
              "whether tracking pauses by itself when the device stops"),
        Field(.main, "logging_mode", \.main.profile.loggingMode, .choice(LoggingMode.self), remote: true,
              "what is sent: every point, the latest, or the latest as owntracks"),
        Field(.main, "batch_size", \.main.profile.batchSize, .choice(BatchSize.self, asNumber: true), remote: true,
              "the most points per request"),
        Field(.main, "resume_with_geofence", \.main.resumeWithGeofence, .choice(ResumeWithGeofence.self), remote: true,
              "after a pause, resume on leaving a circle of this radius"),
        Field(.main, "min_distance", \.main.profile.minDistance, .choice(MinDistance.self), remote: true,
              "the least distance between recorded points"),
        Field(.main, "min_time", \.main.profile.minTime, .intervalChoice(MinTime.self), remote: true,
              "the least time between recorded points"),
    ]

    private static let tripFields: [Field] = [
        Field(.trip, "desired_accuracy", \.trip.profile.desiredAccuracy, .choice(DesiredAccuracy.self), remote: true,
              "during trips: how accurate positions should be"),
        Field(.trip, "activity_type", \.trip.profile.activityType, .choice(ActivityType.self), remote: true,
              "during trips: what the device is used for"),
        Field(.trip, "background_indicator", \.trip.profile.backgroundIndicator, .bool, remote: true,
              "during trips: whether running in the background is shown"),
        Field(.trip, "prevent_screen_lock", \.trip.preventScreenLock, .bool, remote: true,
              "during trips: keep the screen on (no effect on linux)"),
        Field(.trip, "logging_mode", \.trip.profile.loggingMode, .choice(LoggingMode.self), remote: true,
              "during trips: what is sent"),
        Field(.trip, "batch_size", \.trip.profile.batchSize, .choice(BatchSize.self, asNumber: true), remote: true,
              "during trips: the most points per request"),
        Field(.trip, "min_distance", \.trip.profile.minDistance, .choice(MinDistance.self), remote: true,
              "during trips: the least distance between recorded points"),
        Field(.trip, "min_time", \.trip.profile.minTime, .intervalChoice(MinTime.self), remote: true,
              "during trips: the least time between recorded points"),
    ]

    private static let projectFields: [Field] = [
        Field(.top, "journal", \.journal,
              .optionalText(allowed: Validation.absolutePathAllowed, validate: Validation.absolutePath), nullable: true,
              "the journal directory; unset: $XDG_DATA_HOME/overland/journal"),
        Field(.top, "commit_interval", \.commitInterval,
              .interval(in: 0...3600, allowed: "0 to 3600 seconds, as " + Interval.syntax),
              "seconds points may wait in memory before a commit; 0 commits every point"),
        Field(.top, "retention_days", \.retentionDays,
              .integer(in: 0...3650, allowed: "a whole number of days from 0 to 3650"),
              "days sent segments are kept; 0 deletes them at once"),
        Field(.top, "ca_file", \.caFile,
              .optionalText(allowed: Validation.absolutePathAllowed, validate: Validation.absolutePath), nullable: true,
              "a pem file of certificate authorities to trust instead of the system's"),
        Field(.top, "verify", \.verify, .bool,
              "whether each run reads back what the receiver stored and sends missing points again"),
        Field(.top, "verify_url", \.verifyURL,
              .optionalText(allowed: Validation.endpointAllowed, validate: Validation.endpoint), nullable: true,
              "where reading back asks; unset: derived from the endpoint"),
        Field(.top, "verify_token", \.verifyToken,
              .optionalText(allowed: Validation.tokenAllowed, validate: Validation.token), nullable: true,
              "the credentials for reading back when they differ from the token"),
        Field(.top, "integer_speed", \.integerSpeed, .bool,
              "send speed and accuracies as whole numbers (the wayfinder profile), old points too"),
        Field(.top, "profile", \.receiverProfile, .choice(ReceiverProfile.self),
              "the receiver's quirks applied when sending: none; wayfinder (whole-number speed and accuracies); compass (token in the url); dawarich (token as api_key in the url); home-assistant (owntracks topic with user and device); owntracks-recorder (user and device in headers and url)"),
        Field(.top, "protocol", \.wireProtocol, .choice(among: Receivers.httpProtocols.map(\.wireProtocol)),
              "the protocol the receiver speaks: " + Receivers.httpProtocols.map { "\($0.wireProtocol) (\($0.summary))" }.joined(separator: "; ")),
        Field(.top, "stationary_filter", \.stationaryFilter, .bool,
              "while the device is still (speed and distance within the fix's accuracy) keep one point; resume at once on moving"),
        Field(.top, "battery_path", \.batteryPath,
              .optionalText(allowed: Validation.absolutePathAllowed, validate: Validation.absolutePath), nullable: true,
              "a /sys/class/power_supply/NAME directory to read; unset: detect"),
    ]

    private static let wifiZoneMembers: [Field] = [
        Field(wifiZoneMember: "ssid", allowed: "1 to 32 bytes of text", "the wifi zone's network name",
              current: { .string($0.ssid) },
              assign: { zone, json in
                  guard let ssid = json.string, WifiZone.isValidSSID(ssid) else { return false }
                  zone.ssid = ssid
                  return true
              },
              parse: { .string($0) }),
        Field(wifiZoneMember: "latitude", allowed: "a number from -90 to 90", "the wifi zone's latitude",
              current: { .number($0.latitude) },
              assign: { zone, json in
                  guard let latitude = json.double, WifiZone.latitudeRange.contains(latitude) else { return false }
                  zone.latitude = latitude
                  return true
              },
              parse: { text in Double(text).flatMap { $0.isFinite ? JSONValue.number($0) : nil } ?? .string(text) }),
        Field(wifiZoneMember: "longitude", allowed: "a number from -180 to 180", "the wifi zone's longitude",
              current: { .number($0.longitude) },
              assign: { zone, json in
                  guard let longitude = json.double, WifiZone.longitudeRange.contains(longitude) else { return false }
                  zone.longitude = longitude
                  return true
              },
              parse: { text in Double(text).flatMap { $0.isFinite ? JSONValue.number($0) : nil } ?? .string(text) }),
    ]
}
