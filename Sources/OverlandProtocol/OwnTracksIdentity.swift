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

    /// Why `deviceID` cannot name an OwnTracks device, or nil when it can. A device is
    /// `USER/DEVICE` (or `DEVICE`): one `/` at most. With two (`alice/van/2`) the OwnTracks
    /// Recorder files the points under `owntracks/alice/van/2`, a sub-topic its API and
    /// web pages never show. The one rule for the owntracks protocol, its profiles and
    /// mqtt destinations, at `set` time and at sync time.
    public static func problem(deviceID: String) -> String? {
        guard deviceID.split(separator: "/", omittingEmptySubsequences: false).count > 2 else { return nil }
        return "device id '\(ReceiverURL.printable(deviceID))' has more than one '/': OwnTracks names a device USER/DEVICE, "
            + "and the OwnTracks Recorder files this one under a sub-topic its API never shows (set device_id to USER/DEVICE)"
    }
}
