import OverlandProtocol
import Testing
@testable import OverlandSettings

@Suite("Settings by name")
struct SettingKeyTests {
    /// A valid, non-default value for every key, and what `get` shows after setting it.
    static let samples: [String: (text: String, shown: String)] = [
        "endpoint": ("https://x.example/api?ts=%TS", "https://x.example/api?ts=%TS"),
        "token": ("abcdefghijklmnop", "abcdefghijklmnop"),
        "device_id": ("  van  ", "van"),
        "send_interval": ("OFF", "off"),
        "tracking_enabled": ("no", "false"),
        "trip_mode": ("plane", "plane"),
        "wifi_zone": ("home, sweet,52.1, 5.25", "home, sweet,52.1,5.25"),
        "include_tracking_stats": ("on", "true"),
        "consider_2xx_successful": ("yes", "true"),
        "include_unique_id": ("true", "true"),
        "notifications": ("TRUE", "true"),
        "tracking_mode": ("significant", "significant"),
        "visit_tracking": ("on", "true"),
        "desired_accuracy": ("best", "best"),
        "activity_type": ("fitness", "fitness"),
        "background_indicator": ("true", "true"),
        "pause_automatically": ("true", "true"),
        "logging_mode": ("owntracks", "owntracks"),
        "batch_size": ("500", "500"),
        "resume_with_geofence": ("1km", "1km"),
        "min_distance": ("50m", "50m"),
        "min_time": ("5m", "5m"),
        "trip.desired_accuracy": ("nav", "nav"),
        "trip.activity_type": ("car", "car"),
        "trip.background_indicator": ("off", "false"),
        "trip.prevent_screen_lock": ("true", "true"),
        "trip.logging_mode": ("latest", "latest"),
        "trip.batch_size": ("1000", "1000"),
        "trip.min_distance": ("1m", "1m"),
        "trip.min_time": ("10s", "10s"),
        "journal": ("/srv/journal", "/srv/journal"),
        "commit_interval": ("0.5", "0.5"),
        "retention_days": ("30", "30"),
        "ca_file": ("/etc/ssl/ca.pem", "/etc/ssl/ca.pem"),
        "integer_speed": ("on", "true"),
        "verify": ("on", "true"),
        "verify_url": ("https://rec.example/ot", "https://rec.example/ot"),
        "verify_token": ("read-token-1234", "read-token-1234"),
        "profile": ("wayfinder", "wayfinder"),
        "protocol": ("traccar", "traccar"),
        "stationary_filter": ("on", "true"),
        "battery_path": ("/sys/class/power_supply/BAT0", "/sys/class/power_supply/BAT0"),
        "wifi_zone.ssid": ("office", "office"),
        "wifi_zone.latitude": ("-33.5", "-33.5"),
        "wifi_zone.longitude": ("151.25", "151.25"),
    ]

    /// A value each key refuses.
    static func badValue(for name: String) -> String {
        switch name {
        case "token", "verify_token": "a\nb"
        case "device_id": String(repeating: "x", count: 51)
        case "wifi_zone.ssid": String(repeating: "x", count: 33)
        case "commit_interval": "3601"
        case "retention_days": "-1"
        case "batch_size", "trip.batch_size": "300"
        default: "bogus"
        }
    }

    static func withZone() -> Settings {
        var settings = Settings()
        settings.wifiZone = WifiZone(ssid: "home", latitude: 1, longitude: 2)
        return settings
    }

    @Test func everyKeyHasASample() {
        #expect(Set(SettingKey.all.map(\.name)) == Set(Self.samples.keys))
        #expect(SettingKey.all.count == 45)
    }

    @Test(arguments: SettingKey.all)
    func getSetUnset(key: SettingKey) throws {
        let sample = try #require(Self.samples[key.name])
        var settings = key.name.hasPrefix("wifi_zone.") ? Self.withZone() : Settings()
        // verify needs a receiver that can be read back (ReadBackSupport).
        if key.name == "verify" { settings.receiverProfile = .compass }
        #expect(!key.summary.isEmpty && !key.allowedValues.isEmpty)
        try key.set(sample.text, in: &settings)
        #expect(key.get(from: settings) == sample.shown)
        #expect(!key.isDefault(in: settings))
        // The value survives the file.
        let reloaded = try SettingsFile.decode(SettingsFile.encode(settings), path: "s.json")
        #expect(key.get(from: reloaded) == sample.shown)
        key.unset(in: &settings)
        #expect(key.get(from: settings) == key.defaultValue)
        #expect(key.isDefault(in: settings))
    }

    @Test(arguments: SettingKey.all)
    func badValuesAreRefusedWithTheAllowedValues(key: SettingKey) throws {
        var settings = key.name.hasPrefix("wifi_zone.") ? Self.withZone() : Settings()
        let before = settings
        let bad = Self.badValue(for: key.name)
        let error = try #require(settingsError { try key.set(bad, in: &settings) })
        // As shown to people: a refused token is not printed, an endpoint's secrets are redacted;
        // an endpoint in the sync's own words (issue 33), which show it redacted too.
        if key.name == "endpoint" {
            #expect(error == .refusedValue(reason: "endpoint '\(key.shown(bad))' is not an http:// or https:// url"))
        } else {
            #expect(error == .invalidValue(key: key.name, value: quoted(key.shown(bad)), allowed: key.allowedValues, location: nil))
        }
        #expect(error.category == .configuration)
        #expect(settings == before)
    }

    @Test func messagesForBadValues() throws {
        var settings = Settings()
        let error = try #require(settingsError { try SettingKey(named: "min_distance").set("20m", in: &settings) })
        #expect(error.description == #"invalid value "20m" for "min_distance" (allowed: off, 1m, 10m, 50m, 100m, 500m)"#)
        let number = try #require(settingsError { try SettingKey(named: "trip.batch_size").set("lots", in: &settings) })
        #expect(number.description == #"invalid value "lots" for "trip.batch_size" (allowed: 50, 100, 200, 500, 1000)"#)
    }

    @Test func namesMatchTheProtocol() throws {
        var settings = Settings()
        try SettingKey(named: "logging_mode").set("owntracks", in: &settings)
        try SettingKey(named: "batch_size").set("500", in: &settings)
        try SettingKey(named: "min_distance").set("50m", in: &settings)
        try SettingKey(named: "trip.logging_mode").set("latest", in: &settings)
        try SettingKey(named: "main.min_time").set("5s", in: &settings)
        #expect(settings.main.loggingMode == .owntracks)
        #expect(settings.main.batchSize == .fiveHundred)
        #expect(settings.main.minDistance == .fiftyMetres)
        #expect(settings.main.minTime == .fiveSeconds)
        #expect(settings.trip.loggingMode == .latest)
        #expect(settings.trip.batchSize == .twoHundred)
    }

    @Test func unknownKeysSuggestCloseMatches() throws {
        let typo = try #require(settingsError { _ = try SettingKey(named: "batchsize") })
        #expect(typo.description == #"unknown setting "batchsize"; did you mean "batch_size" or "trip.batch_size"?"#)
        let tripOnly = try #require(settingsError { _ = try SettingKey(named: "trip.tracking_mode") })
        guard case .unknownKey(_, _, let suggestions, _, _) = tripOnly else {
            Issue.record("unexpected \(tripOnly)")
            return
        }
        #expect(suggestions == ["tracking_mode"])
        let short = try #require(settingsError { _ = try SettingKey(named: "loging") })
        #expect(short.description == #"unknown setting "loging"; did you mean "logging_mode" or "trip.logging_mode"?"#)
        let nothingClose = try #require(settingsError { _ = try SettingKey(named: "colour") })
        #expect(nothingClose.description.hasPrefix(#"unknown setting "colour" (allowed: endpoint, token, device_id, "#))
        #expect(settingsError { _ = try SettingKey(named: "main.endpoint") } != nil)
        #expect(settingsError { _ = try SettingKey(named: "trip.prevent_screen_lock") } == nil)
        #expect(settingsError { _ = try SettingKey(named: "prevent_screen_lock") } != nil)
    }

    @Test func wifiZoneMembersNeedAZone() throws {
        var settings = Settings()
        let error = try #require(settingsError { try SettingKey(named: "wifi_zone.ssid").set("home", in: &settings) })
        #expect(error.description.contains("first set wifi_zone to SSID,LATITUDE,LONGITUDE"))
        try SettingKey(named: "wifi_zone").set("home,52.0907,5.1214", in: &settings)
        #expect(settings.wifiZone == WifiZone(ssid: "home", latitude: 52.0907, longitude: 5.1214))
        try SettingKey(named: "wifi_zone.latitude").set("10", in: &settings)
        #expect(settings.wifiZone?.latitude == 10)
        #expect(settingsError { try SettingKey(named: "wifi_zone").set("home,91,0", in: &settings) } != nil)
        #expect(settingsError { try SettingKey(named: "wifi_zone").set("home", in: &settings) } != nil)
        #expect(settingsError { try SettingKey(named: "wifi_zone").set(",1,2", in: &settings) } != nil)
        try SettingKey(named: "wifi_zone.longitude").unset(in: &settings)
        #expect(settings.wifiZone == nil)
    }

    @Test func listRedactsTheToken() throws {
        var settings = Settings()
        settings.token = "0123456789abcdef"
        settings.main.batchSize = .fiveHundred
        let entries = SettingKey.list(settings)
        #expect(entries.map(\.key.name) == SettingKey.all.map(\.name).filter { !$0.hasPrefix("wifi_zone.") })
        let token = try #require(entries.first { $0.key.name == "token" })
        #expect(token.value == "••••")
        #expect(!token.isDefault)
        let batch = try #require(entries.first { $0.key.name == "batch_size" })
        #expect(batch.value == "500" && !batch.isDefault)
        let endpoint = try #require(entries.first { $0.key.name == "endpoint" })
        #expect(endpoint.value == "" && endpoint.isDefault)
        // get shows the whole token, for scripts.
        #expect(try SettingKey(named: "token").get(from: settings) == "0123456789abcdef")
    }

    @Test(arguments: [
        ("", ""),
        ("abc", "••••"),
        ("abcdefghijk", "••••"),
        ("abcdefghijkl", "••••"),
        ("a-very-long-token-1234", "••••"),
    ])
    func tokenRedaction(token: String, shown: String) {
        #expect(SettingKey.redactedToken(token) == shown)
    }

    @Test func differencesNameEachChange() {
        var settings = Settings()
        settings.main.batchSize = .fiveHundred
        settings.token = "0123456789abcdef"
        let changes = settings.differences(from: Settings())
        #expect(changes == [
            SettingChange(key: "token", old: "", new: "••••"),
            SettingChange(key: "batch_size", old: "200", new: "500"),
        ])
        #expect(changes.map(\.description) == ["token: (none) -> ••••", "batch_size: 200 -> 500"])
    }

    @Test func verifyIsRefusedWhereNothingCanBeReadBack() throws {
        let verify = try SettingKey(named: "verify")
        var settings = Settings()
        settings.receiverProfile = .wayfinder
        let refused = try #require(settingsError { try verify.set("true", in: &settings) })
        #expect(refused.description.contains("Wayfinder"))
        #expect(!settings.verify)
        settings.receiverProfile = .none
        #expect(settingsError { try verify.set("true", in: &settings) } != nil)
        settings.receiverProfile = .compass
        try verify.set("true", in: &settings)
        // Then choosing a profile that cannot be read back is refused too.
        #expect(settingsError { try SettingKey(named: "profile").set("wayfinder", in: &settings) } != nil)
        #expect(settings.receiverProfile == .compass)
    }

    @Test func theReadTokenIsShownLikeTheToken() throws {
        let key = try SettingKey(named: "verify_token")
        #expect(key.shown("s3cret-read") == SettingKey.hiddenToken)
        #expect(SettingKey.isSecret("verify_token") && SettingKey.isSecret("token") && !SettingKey.isSecret("verify_url"))
    }
}
