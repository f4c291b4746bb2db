import OverlandProtocol

/// One receiver the sync sends the journal to: a name (also the name of its cursor in the
/// journal), a url, the protocol the receiver speaks and its own settings.
///
/// The settings file's `endpoint`, `token`, `batch_size`... are the destination named
/// `default` (`Destination(settings:)`); every other destination lives in
/// `destinations.json` beside the settings file (`DestinationsFile`).
public struct Destination: Sendable, Equatable {
    /// The name of the destination the settings file holds.
    public static let defaultName = "default"

    /// `[a-z0-9][a-z0-9_-]{0,31}`: the journal's cursor name (`cursors/NAME.json`), safe
    /// on FAT and in a file name.
    public var name: String
    /// Where points go: an http(s) url (overland, owntracks, traccar) or an mqtt(s) url.
    public var url: String
    /// The protocol the receiver speaks.
    public var wireProtocol: WireProtocol = .overland
    /// The receiver's quirks applied when sending.
    public var profile: ReceiverProfile = .none
    /// The access token (overland: bearer; owntracks: `user:password`; mqtt: the password).
    public var token: String?
    /// The device id sent in every point; nil: the settings' (else the host name).
    public var deviceID: String?
    /// The most points per request (overland).
    public var batchSize: BatchSize = Settings.defaults.main.profile.batchSize
    /// What is sent: every point, the latest, or the latest as OwnTracks (overland).
    public var loggingMode: LoggingMode = Settings.defaults.main.profile.loggingMode
    /// How often waiting points are sent.
    public var sendInterval: SendInterval = Settings.defaults.sendInterval
    /// A PEM file of certificate authorities to trust instead of the system's.
    public var caFile: String?
    /// Whether any 2xx counts as delivered without `{"result":"ok"}` (overland).
    public var consider2xxSuccessful = false
    /// The MQTT topic; nil: `owntracks/USER/DEVICE`.
    public var topic: String?
    /// The MQTT user name; nil: none.
    public var username: String?
    /// Whether Home Assistant MQTT discovery messages are published.
    public var discovery = false
    /// The MQTT keep-alive, in seconds (0: off).
    public var keepalive = 60
    /// The MQTT protocol version.
    public var protocolVersion: MQTTProtocolVersion = .v311
    /// Whether MQTT location messages are published retained (OwnTracks' `pubRetain`,
    /// true by default in the apps): a subscriber that comes later sees the position at once.
    public var pubRetain = true
    /// Which commands on the MQTT `TOPIC/cmd` are obeyed.
    public var commands: RemoteCommands = .report
    /// Points a second that read-back sends again through an MQTT broker (OverlandMQTT's
    /// `ResendPace`): as fast as the broker's subscriber takes them, not as the broker does.
    public var resendRate = 10
    /// Whether every run reads back what the receiver stored (`ReadBackPass`).
    public var verify = false
    /// Where reading back asks, instead of the address derived from `url`.
    public var verifyURL: String?
    /// The credentials for reading back, when they differ from `token`; never shown.
    public var verifyToken: String?

    /// A destination with every default but its name, url and protocol.
    public init(name: String, url: String, wireProtocol: WireProtocol = .overland) {
        self.name = name
        self.url = url
        self.wireProtocol = wireProtocol
    }

    /// What a name may be, for messages.
    public static let nameAllowed = "1 to 32 characters of a-z, 0-9, '_' and '-', starting with a letter or digit"

    /// Whether `text` is a destination name: `[a-z0-9][a-z0-9_-]{0,31}`.
    public static func isValidName(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (1...32).contains(bytes.count) else { return false }
        func alphanumeric(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        return alphanumeric(bytes[0]) && bytes.dropFirst().allSatisfy { alphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
    }

    /// The default destination the settings hold, or nil when no endpoint is set. Its
    /// protocol is the settings' `protocol` (overland unless set; `logging_mode owntracks`
    /// sends OwnTracks messages over it, as before destinations existed); its batch size
    /// and logging mode are the main profile's.
    public init?(settings: Settings) {
        guard let endpoint = settings.endpoint else { return nil }
        self.init(name: Self.defaultName, url: endpoint)
        wireProtocol = settings.wireProtocol
        profile = settings.effectiveReceiverProfile
        token = settings.token
        deviceID = settings.deviceID
        batchSize = settings.main.profile.batchSize
        loggingMode = settings.main.profile.loggingMode
        sendInterval = settings.sendInterval
        caFile = settings.caFile
        consider2xxSuccessful = settings.consider2xxSuccessful
        verify = settings.verify
        verifyURL = settings.verifyURL
        verifyToken = settings.verifyToken
    }

    /// Whether this is the destination the settings file holds.
    public var isDefault: Bool { name == Self.defaultName }
}

/// The protocols a destination may speak: every one of `Receivers.table`, by name.
extension WireProtocol: SettingChoice {
    public var name: String { rawValue }
}

/// The choices declared in OverlandProtocol, as settings take them.
extension RemoteCommands: SettingChoice {}
extension LoggingMode: SettingChoice {}

/// The `profile` setting: which receiver's quirks the sync applies when it sends. The
/// profiles themselves, and what each changes, are `ReceiverProfile.all`: the values a
/// setting allows are that table's names, nothing declared again.
extension ReceiverProfile: SettingChoice {
    public static var allCases: [ReceiverProfile] { all }
}

/// The MQTT protocol versions a destination may use.
public enum MQTTProtocolVersion: String, SettingChoice {
    case v311 = "3.1.1"
    case v5 = "5"
}
