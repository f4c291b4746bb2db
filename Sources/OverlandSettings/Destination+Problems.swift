import OverlandProtocol

/// Everything the sync would refuse of a destination, in its own words: the one check
/// `overland destination add/set`, `overland config set`, `overland-sync` (with
/// `--watch`), `overland destination audit` and `overland status` call. Each rule is
/// written once (`DestinationRules`, `ReadBackSupport`, `urlProblem`); this says which
/// apply to a destination.
extension Destination {
    /// The device id this destination sends: its own, else the settings' (else the host name).
    public func sentDeviceID(settings: Settings) -> String {
        DeviceIdentity.resolve(flag: deviceID, settings: settings)
    }

    /// Why the sync would refuse this destination, one line each, in the order the sync
    /// checks them; empty when it would send. `settings` gives the device id a destination
    /// without its own inherits.
    public func problems(settings: Settings) -> [String] {
        let sent = sentDeviceID(settings: settings)
        let carried = carriedProtocol
        let checks: [String?] = [
            Destination.urlProblem(url, for: carried),
            // A broker's messages take no profile: the MQTT sender applies none.
            carried == .mqtt ? nil : DestinationRules.profileProblem(profile, wireProtocol: carried, loggingMode: loggingMode),
            DestinationRules.deviceIDProblem(sent, wireProtocol: carried, loggingMode: loggingMode, profile: profile),
            verify ? ReadBackSupport.problem(protocol: carried, profile: profile, loggingMode: loggingMode, verifyURL: verifyURL) : nil,
        ]
        return checks.compactMap { $0 }
    }

    /// The protocol the sync sends this destination with: its own, except that an
    /// `mqtt://` or `mqtts://` url goes through a broker whatever the protocol (the
    /// settings' endpoint names none for one: `Receivers.carrier`).
    var carriedProtocol: WireProtocol {
        if case .mqttBroker? = Receivers.carrier(of: wireProtocol, url: url) { return .mqtt }
        return wireProtocol
    }

    /// The first problem this destination has that `old` had not (nil: none new): a
    /// change is refused for what it breaks, never for what was broken before it, so
    /// that mistakes can be mended one key at a time.
    public func newProblem(since old: Destination?, settings: Settings, oldSettings: Settings? = nil) -> String? {
        let before = old?.problems(settings: oldSettings ?? settings) ?? []
        return problems(settings: settings).first { !before.contains($0) }
    }

    /// The default destination as `settings` would make it even without an endpoint (its
    /// url then empty), so that a change to the settings is checked before one is set.
    public init(settingsEvenWithoutEndpoint settings: Settings) {
        var complete = settings
        if complete.endpoint == nil { complete.endpoint = "" }
        self.init(settings: complete)!
    }

    /// The first problem a change of the settings from `old` to `new` makes in the
    /// destinations: the default one (the settings' own), and each of `named` that
    /// inherits the settings' device id. A named destination's line starts with its name.
    public static func newProblem(settingsFrom old: Settings, to new: Settings, named: [Destination]) -> String? {
        let before = Destination(settingsEvenWithoutEndpoint: old).problems(settings: old)
        let after = Destination(settingsEvenWithoutEndpoint: new)
        // Without an endpoint there is no default destination to send to: its empty url is no mistake.
        let noEndpoint = new.endpoint == nil ? Destination.urlProblem("", for: after.wireProtocol) : nil
        if let problem = after.problems(settings: new).first(where: { !before.contains($0) && $0 != noEndpoint }) {
            return problem
        }
        for destination in named {
            if let problem = destination.newProblem(since: destination, settings: new, oldSettings: old) {
                return "destination '\(destination.name)': \(problem)"
            }
        }
        return nil
    }
}
