#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import OverlandJSON
import OverlandProtocol

/// Everything a sync run needs to know, filled by the command line from the settings file
/// and its flags. A plain value: the engine reads it and never changes it.
public struct SyncConfiguration: Sendable, Equatable {
    /// The batch sizes the protocol allows.
    public static let batchSizes = [50, 100, 200, 500, 1000]

    /// The endpoint URL, possibly with placeholders (`%TS`, `%LAT`...); http or https.
    public var endpoint: String
    /// The access token: sent as `Authorization: Bearer <token>`, or in the OwnTracks mode
    /// as `user:password` Basic credentials. Nil or empty: no `Authorization` header.
    public var token: String?
    /// The configured device id; in the OwnTracks mode `user/device`.
    public var deviceID: String
    /// Records per request in the `all` mode: one of `batchSizes`.
    public var batchSize = 200
    /// What is sent.
    public var loggingMode = LoggingMode.all
    /// The protocol the receiver speaks.
    public var wireProtocol = WireProtocol.overland
    /// The receiver's quirks, applied to every point as it is sent (never to the journal).
    public var profile = ReceiverProfile.none
    /// Count any 2xx as delivered, even without `{"result":"ok"}` (can lose data when such
    /// a server fails internally).
    public var consider2xxSuccessful = false
    /// The least time between two runs that send, in seconds; nil when sending is off.
    public var sendIntervalSeconds: Int? = 300
    /// A PEM file of certificate authorities to trust instead of the system's.
    public var caFile: String?
    /// Seconds for one whole request: connect, send, and the whole reply.
    public var requestTimeout: Double = 60
    /// Seconds to establish a connection (TCP and TLS).
    public var connectTimeout: Double = 10
    /// Seconds a run may spend sending before it stops: checked between batches (the first
    /// batch always goes), and each request's deadline is cut to fit (at least 1 s); nil for
    /// no limit.
    public var maxTime: Double?
    /// The `User-Agent` header: the tool and its version.
    public var userAgent = "overland-sync"
    /// The active trip as one compact JSON object, sent as `trip` in every request while
    /// a trip is active (protocol reference, section 4); nil when no trip is active.
    public var trip: [UInt8]?
    /// How long delivered segments are kept before deletion, in seconds (0: at once);
    /// nil keeps them forever.
    public var keepSentSeconds: Int64? = 0
    /// The largest reply body read, in bytes; a longer reply is a failed attempt.
    public var replyLimit = 1 << 20

    /// Creates a configuration with the protocol's defaults.
    public init(endpoint: String, token: String? = nil, deviceID: String = "") {
        self.endpoint = endpoint
        self.token = token
        self.deviceID = deviceID
    }

    /// The token when one is set.
    var effectiveToken: String? {
        guard let token, !token.isEmpty else { return nil }
        return token
    }

    /// Which receiver this is, as ``SyncState/failuresAgainst`` records it: failures
    /// against another fingerprint (the url or token changed since) no longer apply.
    public var receiverFingerprint: String {
        SyncState.fingerprint(url: endpoint, token: effectiveToken)
    }

    /// The protocol the receiver is spoken to in: `wireProtocol`, except that the Overland
    /// protocol's `owntracks` logging mode sends OwnTracks messages (protocol reference,
    /// section 6).
    public var effectiveProtocol: WireProtocol {
        DestinationRules.spokenProtocol(wireProtocol, loggingMode: loggingMode)
    }

    /// What the receiver is told. A profile that fits the configured protocol but not the
    /// one spoken (`wayfinder` or `compass` with the `owntracks` logging mode) is not
    /// applied, as before there were protocols.
    public var receiverOptions: ReceiverOptions {
        ReceiverOptions(endpoint: endpoint, token: effectiveToken, deviceID: deviceID, userAgent: userAgent,
                        profile: profile.fits(effectiveProtocol) ? profile : .none, trip: trip, batchSize: batchSize,
                        newestOnly: loggingMode != .all, consider2xxSuccessful: consider2xxSuccessful)
    }

    /// The receiver for this configuration, nil when this build has none for the protocol.
    public func makeReceiver() -> (any Receiver)? {
        Receivers.receiver(for: effectiveProtocol, options: receiverOptions)
    }

    /// Checks what can be checked before any request: the endpoint's scheme and host, the
    /// batch size, the timeouts and the trip object.
    public func validate() throws(SyncError) {
        // The one check `overland config set` and `overland destination add/set` run too.
        do { try ReceiverURL.checkHTTP(endpoint) } catch { throw .configuration(error.description) }
        try validateReceiver()
        guard Self.batchSizes.contains(batchSize) else {
            throw .configuration("batch size \(batchSize) is not one of 50, 100, 200, 500, 1000")
        }
        guard requestTimeout > 0, connectTimeout > 0 else {
            throw .configuration("timeouts must be positive")
        }
        if let maxTime, !(maxTime > 0) { throw .configuration("max time must be positive") }
        if let caFile, let problem = CAFile.problem(caFile) { throw .configuration(problem) }
        if let trip, (try? JSONParser.parse(trip, limits: JSONLimits(maxDepth: 16, maxBytes: 256 << 10)))?.object == nil {
            throw .configuration("trip is not a json object")
        }
    }
}

extension SyncConfiguration {
    /// Checks that this build has a receiver for the protocol, that the profile fits it,
    /// and that the receiver has what it cannot work without.
    func validateReceiver() throws(SyncError) {
        guard makeReceiver() != nil else {
            throw .configuration("protocol \(wireProtocol) is not available in this build of overland-sync")
        }
        // The rules `overland destination set` and the MQTT sender run too (`DestinationRules`).
        if let problem = DestinationRules.profileProblem(profile, wireProtocol: wireProtocol, loggingMode: loggingMode) {
            throw .configuration(problem)
        }
        if let problem = DestinationRules.deviceIDProblem(deviceID, wireProtocol: wireProtocol, loggingMode: loggingMode, profile: profile) {
            throw .configuration(problem)
        }
    }
}

/// The scheme, host and port of an endpoint URL, enough to validate it and to compare hosts.
struct EndpointURL: Equatable {
    enum Port: Equatable {
        /// None written.
        case standard
        case number(Int)
        /// Not a number from 1 to 65535 (an HTTP client would trap on 70000), as written.
        case invalid(String)
    }

    var scheme: String
    var host: String
    var port: Port

    init?(_ url: String) {
        let lower = url.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") {
            scheme = "https"
            rest = url.dropFirst(8)
        } else if lower.hasPrefix("http://") {
            scheme = "http"
            rest = url.dropFirst(7)
        } else {
            return nil
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        let afterHost: Substring
        if hostPort.hasPrefix("[") {
            host = String(hostPort.prefix { $0 != "]" }.dropFirst()).lowercased()
            afterHost = hostPort.drop { $0 != "]" }.dropFirst()
        } else {
            host = String(hostPort.prefix { $0 != ":" }).lowercased()
            afterHost = hostPort.drop { $0 != ":" }
        }
        port = Self.port(afterHost)
    }

    /// The port from what follows the host (`""`, `":8080"`), by the rule every receiver
    /// url shares (`ReceiverURL.port`).
    private static func port(_ text: Substring) -> Port {
        switch ReceiverURL.port(afterHost: text) {
        case .success(let number): return number.map(Port.number) ?? .standard
        case .failure: return .invalid(String(text.dropFirst().prefix(40)))
        }
    }
}
