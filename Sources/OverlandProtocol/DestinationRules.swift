/// The rules a destination's keys must keep together, each written once and called by
/// every path that checks them: `overland destination add/set` and `overland config set`
/// (OverlandSettings' `Destination.problems`), the HTTP sync (`SyncConfiguration`), the
/// MQTT sender (`MQTTDestination`) and reading back (`ReadBackSupport`). Each returns the
/// one line that refuses, or nil.
public enum DestinationRules {
    /// The protocol the receiver is spoken to in: `wireProtocol`, except that the Overland
    /// protocol's `owntracks` logging mode sends OwnTracks messages (protocol reference,
    /// section 6).
    public static func spokenProtocol(_ wireProtocol: WireProtocol, loggingMode: LoggingMode) -> WireProtocol {
        wireProtocol == .overland && loggingMode == .owntracks ? .owntracks : wireProtocol
    }

    /// Why `deviceID` (the one the destination sends: its own, else the settings') cannot
    /// name the device at this receiver, by the rules of its lines (`ReceiverKind.deviceIDs`
    /// of the configured and the spoken protocol, and OwnTracks' `USER/DEVICE` for a
    /// profile that completes an OwnTracks identity).
    public static func deviceIDProblem(_ deviceID: String, wireProtocol: WireProtocol, loggingMode: LoggingMode,
                                       profile: ReceiverProfile) -> String? {
        var rules = [wireProtocol, spokenProtocol(wireProtocol, loggingMode: loggingMode)].compactMap { Receivers.kind(of: $0)?.deviceIDs }
        if profile.completesIdentity { rules.append(.ownTracksIdentity) }
        return rules.lazy.compactMap { $0.problem(deviceID) }.first
    }

    /// Why `profile` does not fit: checked against both the configured and the spoken
    /// protocol (the `owntracks` logging mode of the overland protocol speaks OwnTracks,
    /// and kept its overland profiles before there were protocols).
    public static func profileProblem(_ profile: ReceiverProfile, wireProtocol: WireProtocol, loggingMode: LoggingMode) -> String? {
        let spoken = spokenProtocol(wireProtocol, loggingMode: loggingMode)
        guard !profile.fits(wireProtocol), !profile.fits(spoken) else { return nil }
        return profile.refusal(for: spoken)
    }

    /// The user name and password a broker connection uses: `username` with the token as
    /// the password, or a token `user:password` split in two, or the token alone.
    public static func brokerCredentials(username: String?, token: String?) -> (username: String?, password: String?) {
        let token = token.flatMap { $0.isEmpty ? nil : $0 }
        if let username, !username.isEmpty { return (username, token) }
        if let token, token.contains(":") {
            let parts = OwnTracksCredentials(token: token)
            return (parts.user, parts.password)
        }
        return (nil, token)
    }

    /// Why a broker would not be logged in to with `username` and `token`: a password
    /// needs a user name.
    public static func brokerCredentialsProblem(username: String?, token: String?) -> String? {
        let credentials = brokerCredentials(username: username, token: token)
        guard credentials.username == nil, credentials.password != nil else { return nil }
        return "a token (password) needs a user name: set 'username' (or a token 'user:password')"
    }

    /// Why an MQTT keep-alive of `seconds` is refused: 0 turns it off, libmosquitto takes 5 to 65535.
    public static func keepaliveProblem(_ seconds: Int) -> String? {
        seconds == 0 || (5...65_535).contains(seconds) ? nil : "keepalive \(seconds) is not 0 (off) or from 5 to 65535 seconds"
    }
}
