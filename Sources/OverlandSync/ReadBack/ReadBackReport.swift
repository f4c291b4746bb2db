/// What one read-back pass found, for the command line to print and turn into a status.
public struct ReadBackReport: Sendable, Equatable {
    /// The receiver read back ("the OwnTracks Recorder"), for messages.
    public var receiverName = "the receiver"
    /// Points compared with the receiver's store.
    public var checked = 0
    /// Of them, found stored (at once or after a resend).
    public var stored = 0
    /// Points sent again because they were read back missing: read back by a later run,
    /// once settled.
    public var resent = 0
    /// Points acknowledged or sent again too recently to be read back (the reader's
    /// settle time): a later run reads them.
    public var waiting = 0
    /// What the pass found wrong with its own state (a stored mark beyond the cursor),
    /// one line each.
    public var notes: [String] = []
    /// The points refused in this pass: still missing after two resends.
    public var refused: Refusal?
    /// Why the pass could not finish (the receiver could not be read, a resend was not
    /// acknowledged, the resend budget ran out): what is not compared yet waits for the
    /// next run. Nil when it finished.
    public var unfinished: String?
    /// Whether `unfinished` is a configuration problem (no reader for this destination).
    public var misconfigured = false
    /// Points refused earlier and tried again in this pass, since the destination is now
    /// sent otherwise (its url, token, protocol, profile or device id changed).
    public var retriedRefused: UInt64 = 0
    /// Where the stored mark is after the pass.
    public var storedThrough: UInt64?

    public init() {}

    /// Points a receiver acknowledged and does not hold after two resends.
    public struct Refusal: Sendable, Equatable {
        public var count = 0
        /// The first and last refused point's time (Unix seconds).
        public var firstTime: Int64 = .max
        public var lastTime: Int64 = .min
        /// What every refused point has and no stored one does, with the setting that
        /// fixes it; nil when no one property sets them apart.
        public var cause: RefusalCause?
        /// Whether the receiver held none of the points compared (a wrong verify_url,
        /// device or entity, rather than points it would not keep).
        public var noneHeld = false
        /// Whether they went through a broker, which acknowledges before its subscriber has
        /// a message and may drop what queues for it: not known refused by the receiver.
        public var throughBroker = false
    }
}

/// A property that sets refused points apart from stored ones, and what fixes it.
public enum RefusalCause: String, Sendable, CaseIterable {
    case fractionalSpeed, zeroAccuracy, sharedSecond, deviceTwoSlashes

    /// What the points have, as a phrase.
    public var what: String {
        switch self {
        case .fractionalSpeed: "each has a speed with a fraction"
        case .zeroAccuracy: "each has accuracy 0"
        case .sharedSecond: "each shares its second with another point the receiver holds"
        case .deviceTwoSlashes: "their device id has more than one '/'"
        }
    }

    /// The profile or setting that fixes it.
    public var fix: String {
        switch self {
        case .fractionalSpeed: "the receiver keeps whole numbers only (as Wayfinder does): profile wayfinder sends them whole"
        case .zeroAccuracy: "the receiver ignores accuracy 0 (as Home Assistant does): profile wayfinder sends a known accuracy as at least 1"
        case .sharedSecond: "give each device its own account at the receiver, or set min_time 1 so that one device logs one point a second"
        case .deviceTwoSlashes: "set device_id to USER/DEVICE (one '/')"
        }
    }
}
