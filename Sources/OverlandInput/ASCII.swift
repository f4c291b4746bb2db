/// The ASCII bytes the NMEA and JSON framers and parsers look for.
enum ASCII {
    static let tab: UInt8 = 0x09
    static let lf: UInt8 = 0x0A
    static let cr: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let bang: UInt8 = 0x21
    static let hash: UInt8 = 0x23
    static let dollar: UInt8 = 0x24
    static let star: UInt8 = 0x2A
    static let plus: UInt8 = 0x2B
    static let comma: UInt8 = 0x2C
    static let minus: UInt8 = 0x2D
    static let dot: UInt8 = 0x2E
    static let zero: UInt8 = 0x30
    static let colon: UInt8 = 0x3A
    static let openBrace: UInt8 = 0x7B

    /// Whether `c` is printable ASCII, space through tilde.
    @inline(__always)
    static func isPrintable(_ c: UInt8) -> Bool { c >= 0x20 && c < 0x7F }

    /// The value of a decimal digit, or nil.
    @inline(__always)
    static func digitValue(_ c: UInt8) -> UInt8? {
        let d = c &- ASCII.zero
        return d < 10 ? d : nil
    }
}
