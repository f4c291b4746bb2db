import OverlandProtocol

extension Destination {
    /// A new destination `name` to `url`, as `overland destination add` makes it: each value
    /// checked as `destination set` checks it (`DestinationKey.set`), the protocol first and
    /// the token last (`token` is asked for only then: it may read standard input), and
    /// refused for what the sync would refuse of it (`problems`: a device id it inherits
    /// from `settings` too). Throws `SettingsError` for a value, and what `token` throws.
    public static func adding(_ name: String, url: String, protocol wireProtocol: String?, profile: String?, deviceID: String?,
                              token: (() throws -> String)?, settings: Settings) throws -> Destination {
        var destination = Destination(name: name, url: "")
        if let wireProtocol {
            guard let chosen = WireProtocol(name: wireProtocol.lowercased()) else {
                throw SettingsError.invalidValue(key: "protocol", value: "\"\(wireProtocol)\"", allowed: WireProtocol.allowedNames, location: nil)
            }
            destination.wireProtocol = chosen
        }
        try DestinationKey(named: "url").set(url, in: &destination, settings: settings)
        if let profile { try DestinationKey(named: "profile").set(profile, in: &destination, settings: settings) }
        if let deviceID { try DestinationKey(named: "device_id").set(deviceID, in: &destination, settings: settings) }
        if let token { try DestinationKey(named: "token").set(try token(), in: &destination, settings: settings) }
        if let problem = destination.problems(settings: settings).first { throw SettingsError.refusedValue(reason: problem) }
        return destination
    }
}
