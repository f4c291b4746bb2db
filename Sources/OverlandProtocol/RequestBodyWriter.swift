/// Builds the body of an upload request, `{"locations":[...],"current":{...},"trip":{...}}`
/// (protocol reference, section 1), by appending stored record lines as they are.
///
/// A journal line is already the exact Feature JSON that travels in `locations`, so
/// nothing is parsed or re-encoded here: the same records always give the same bytes,
/// which is what makes a resent batch byte-for-byte identical. The caller guarantees that
/// every line is one JSON object (the journal checks that before passing a record on).
///
/// A `ReceiverProfile` other than `none` rewrites the values its receiver needs (whole
/// numbers for Wayfinder) as each line goes in, `locations` and `current` alike: receiver
/// quirks apply at send time, to whatever the journal holds, and a resend with the same
/// profile is still byte for byte the same.
public struct RequestBodyWriter: Sendable {
    /// How each line is written for the receiver.
    public let profile: ReceiverProfile
    /// The body written so far; complete once `finish` has been called.
    public private(set) var bytes: [UInt8]
    /// How many lines `locations` holds.
    public private(set) var locationCount = 0
    private var finished = false

    /// Creates an empty body with room for `capacity` bytes.
    public init(reservingCapacity capacity: Int = 0, profile: ReceiverProfile = .none) {
        self.profile = profile
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(contentsOf: Self.opening)
    }

    /// Appends one stored record line (a JSON object, no newline) to `locations`.
    public mutating func appendLocation(_ line: ArraySlice<UInt8>) {
        precondition(!finished, "appendLocation after finish")
        if locationCount > 0 { bytes.append(UInt8(ascii: ",")) }
        profile.write(line, to: &bytes)
        locationCount += 1
    }

    /// Appends one record line to `locations`.
    public mutating func appendLocation(_ line: [UInt8]) {
        appendLocation(line[...])
    }

    /// Closes `locations` and adds `current` (a location Feature line) and `trip` (a JSON
    /// object) when given. The body is then complete in `bytes`.
    public mutating func finish(current: ArraySlice<UInt8>? = nil, trip: [UInt8]? = nil) {
        precondition(!finished, "finish called twice")
        bytes.append(UInt8(ascii: "]"))
        if let current {
            bytes.append(contentsOf: #","current":"#.utf8)
            profile.write(current, to: &bytes)
        }
        if let trip {
            bytes.append(contentsOf: #","trip":"#.utf8)
            bytes.append(contentsOf: trip)
        }
        bytes.append(UInt8(ascii: "}"))
        finished = true
    }

    /// Empties the body for the next batch, keeping its storage.
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: Self.opening)
        locationCount = 0
        finished = false
    }

    private static let opening: [UInt8] = Array(#"{"locations":["#.utf8)
}
