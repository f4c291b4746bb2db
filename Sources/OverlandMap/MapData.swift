/// One point kept for drawing, in world units (longitude unwrapped).
struct MapPoint {
    static let forced: UInt8 = 1      // never thinned: a track's ends, a gap's ends, where unsent begins
    static let gapAfter: UInt8 = 2    // the line to the next point is a gap
    static let trackStart: UInt8 = 4

    var x: Double
    var y: Double
    var time: Int64
    /// m/s; negative: unknown.
    var speed: Float
    /// Metres; negative: unknown.
    var accuracy: Int32
    var track: Int32
    var device: Int32
    /// Bit i: not yet sent to destination i (the first 16).
    var unsent: UInt16
    var flags: UInt8
}

/// A day, or a trip (its points carry its id): drawn in its own colour, one row of the table.
public struct MapTrack: Sendable {
    public var name: String
    public var start: Int64
    public var end: Int64
    /// Metres, along the track, gaps left out.
    public var distance = 0.0
    public var points = 0
    public var gaps = 0
}

/// No point for longer than the gap threshold.
public struct MapGap: Sendable {
    public var from: Int64
    public var to: Int64
    var fromX: Double, fromY: Double, toX: Double, toY: Double
    /// Metres between the points either side.
    public var distance: Double
}

/// Within the stop radius for at least the stop time.
public struct MapStop: Sendable {
    public var from: Int64
    public var to: Int64
    var x: Double, y: Double
}

/// What the map counted: the legend's figures and the command's line.
public struct MapSummary: Sendable {
    /// Records read from the journal (all kinds), and of them points within the window.
    public var records = 0
    public var points = 0
    /// Points drawn after simplification.
    public var drawn = 0
    /// Points of another device (`--device`) or trip (`--trip`).
    public var otherDevice = 0
    /// Points with a position out of range.
    public var invalid = 0
    /// Points beyond Mercator's latitude limit, drawn at the edge.
    public var beyondPoles = 0
    public var earliest: Int64?
    public var latest: Int64?
    public var tracks: [MapTrack] = []
    public var gapCount = 0
    public var stopCount = 0
    /// Points not yet sent, by destination (the options' order).
    public var unsent: [(name: String, count: Int, first: Int64?)] = []
    /// Damaged stretches the journal's reader skipped (the command counts them).
    public var skippedIssues = 0
    /// Points logged after later ones (drawn in time order all the same).
    public var outOfOrder = 0
}
