/// Who an OwnTracks location message is from, derived from the configured device id,
/// which the protocol means to be `user/device` (protocol reference, section 6).
///
/// - `topic` is `owntracks/` followed by the device id as configured, as the phone app
///   sends it (`owntracks/alice/phone`).
/// - `user` and `device` feed OwnTracks Recorder's `X-Limit-U` and `X-Limit-D` headers:
///   the parts before and after the first `/`. A device id without `/` is the device
///   name, and the user is the Basic-authentication user name when there is one.
/// - `trackerID` (`tid`) is the last two characters of the device part (the whole part
///   when shorter); OwnTracks shows it on the map marker. Nil when the device part is empty.
public struct OwnTracksIdentity: Sendable, Equatable {
    /// The user part, or nil when there is none.
    public var user: String?
    /// The device part, or nil when the device id is empty.
    public var device: String?
    /// The MQTT-style topic carried in the message.
    public var topic: String
    /// The two-character tracker id, or nil.
    public var trackerID: String?

    /// Splits `deviceID`; `fallbackUser` (the Basic-authentication user) names the user
    /// when the id has no `/`.
    public init(deviceID: String, fallbackUser: String? = nil) {
        topic = "owntracks/" + deviceID
        if let slash = deviceID.firstIndex(of: "/") {
            let userPart = String(deviceID[..<slash])
            let devicePart = String(deviceID[deviceID.index(after: slash)...])
            user = userPart.isEmpty ? nil : userPart
            device = devicePart.isEmpty ? nil : devicePart
        } else {
            user = fallbackUser.flatMap { $0.isEmpty ? nil : $0 }
            device = deviceID.isEmpty ? nil : deviceID
        }
        trackerID = device.map { String($0.suffix(2)) }
    }
}
