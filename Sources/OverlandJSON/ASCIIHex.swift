/// Hexadecimal digits in ASCII, as NMEA checksums, JSON `\u` escapes' neighbours and
/// percent-encoded URLs write them.
public enum ASCIIHex {
    /// The value of the hex digit `byte` (0-9, a-f, A-F), or nil.
    @inlinable
    public static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
