/// The outcome of decoding one line of gpsd JSON.
public enum GPSDDecodeResult: Sendable, Equatable {
    /// A TPV report with a 2D or 3D fix, a time and a position.
    case fix(Fix)
    /// A TPV report without a usable fix: mode 0 or 1, or no time or position.
    case noFix
    /// A report of another class (VERSION, DEVICES, DEVICE, WATCH, SKY, GST, PPS, ...),
    /// with its class name.
    case ignored(String)
    /// Not a JSON object with a string `class`, or a TPV whose members have the wrong type
    /// or are out of range.
    case malformed
}
