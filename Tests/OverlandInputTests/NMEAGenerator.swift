import Foundation
import OverlandInput

/// Structure-aware NMEA 0183: sentences of every type the decoder knows (and some it does
/// not), each field drawn from what a receiver writes and from its extremes: numbers of
/// 0 to 400 digits on either side of the point, signs, magnitudes past every integer type,
/// times and dates at every boundary (midnight, leap second, 29 February, the two-digit
/// year pivot, year 0 and 9999), coordinates at and past the poles and the antimeridian,
/// hemisphere letters right and wrong; checksums valid, mostly. Seeded: the same seed gives
/// the same bytes.
struct NMEAGenerator {
    var random: SeededGenerator

    init(seed: UInt64) { random = SeededGenerator(state: seed) }

    static let talkers = ["GP", "GN", "GL", "GA", "GB", "BD", "GQ", "GI", "II", "P", ""]
    static let types = ["RMC", "GGA", "GNS", "GLL", "GSA", "GST", "VTG", "ZDA", "GSV", "TXT"]

    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
    mutating func pick<T>(_ items: [T]) -> T { items.randomElement(using: &random)! }
    mutating func digits(_ count: Int) -> String {
        String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
    }
    mutating func length() -> Int {
        pick([0, 1, 2, 5, 9, 17, 18, 19, 20, 21, 40, 400, Int.random(in: 0...64, using: &random)])
    }

    /// A decimal number: ordinary, or extreme in length, magnitude or form.
    mutating func number() -> String {
        switch Int.random(in: 0..<12, using: &random) {
        case 0: return digits(Int.random(in: 1...3, using: &random)) + "." + digits(Int.random(in: 1...3, using: &random))
        case 1: return "0." + String(repeating: "0", count: length()) + digits(Int.random(in: 0...3, using: &random))
        case 2: return digits(length()) + "." + digits(length())
        case 3: return pick(["-", "+", "--", "+-", ""]) + digits(Int.random(in: 0...25, using: &random)) + pick([".", "", ".5"])
        case 4: return pick(["18446744073709551615", "18446744073709551616", "9007199254740993", "99999999999999999999.9",
                             "1e308", "1E-400", "NaN", "inf", "-0", "0.", ".", ".0", "..", "0x1F", " 1", "1 "])
        case 5: return String(repeating: "9", count: length()) + "." + String(repeating: "9", count: length())
        case 6: return ""
        default: return String(Double.random(in: 0...200, using: &random)).prefix(Int.random(in: 1...12, using: &random)).description
        }
    }

    mutating func time() -> String {
        let base = pick(["000000", "235959", "235960", "240000", "120000", "995959", "000060", "006000", "2359", "1234567",
                         String(format: "%02d%02d%02d", Int.random(in: 0...24, using: &random), Int.random(in: 0...60, using: &random),
                                Int.random(in: 0...60, using: &random))])
        return base + (chance(60) ? "." + digits(length()) : "")
    }

    mutating func ddmmyy() -> String {
        pick(["010100", "311299", "290200", "290201", "290296", "300280", "010180", "311279", "000000", "320199", "011399",
              "999999", "01010", "0101000", String(format: "%02d%02d%02d", Int.random(in: 0...32, using: &random),
                                                   Int.random(in: 0...13, using: &random), Int.random(in: 0...99, using: &random))])
    }

    /// `[d]ddmm.mmmm`, hemisphere; near and past the limits.
    mutating func coordinate(longitude: Bool) -> (String, String) {
        let degrees = longitude ? pick([0, 1, 179, 180, 181, 999]) : pick([0, 1, 89, 90, 91, 99])
        let minutes = pick(["00", "59", "60", "99"])
        let width = longitude ? 3 : 2
        var text = String(format: "%0\(width)d", degrees) + minutes + (chance(80) ? "." + digits(length()) : "")
        if chance(10) { text = number() }
        let letter = longitude ? pick(["E", "W", "N", "", "EE"]) : pick(["N", "S", "E", "", "n"])
        return (text, letter)
    }

    mutating func sentenceBody() -> String {
        let type = pick(Self.types)
        var fields: [String]
        switch type {
        case "RMC":
            let (lat, ns) = coordinate(longitude: false), (lon, ew) = coordinate(longitude: true)
            fields = [time(), pick(["A", "V", "", "X"]), lat, ns, lon, ew, number(), number(), ddmmyy(), number(), pick(["E", "W", ""]),
                      pick(["A", "D", "N", "E", "R", "F", ""]), pick(["V", "S", "C", "U", ""])]
        case "GGA":
            let (lat, ns) = coordinate(longitude: false), (lon, ew) = coordinate(longitude: true)
            fields = [time(), lat, ns, lon, ew, pick(["0", "1", "2", "4", "5", "6", "9", "", "10"]), number(), number(), number(), "M",
                      number(), "M", number(), digits(4)]
        case "GNS":
            let (lat, ns) = coordinate(longitude: false), (lon, ew) = coordinate(longitude: true)
            fields = [time(), lat, ns, lon, ew, pick(["AANN", "NNNN", "DA", "", "RRRRRRRRRRRRRRRRRRRRRR"]), number(), number(), number(),
                      number(), number(), digits(4), pick(["V", "S", ""])]
        case "GLL":
            let (lat, ns) = coordinate(longitude: false), (lon, ew) = coordinate(longitude: true)
            fields = [lat, ns, lon, ew, time(), pick(["A", "V", ""]), pick(["A", "D", "N", ""])]
        case "GSA":
            fields = [pick(["A", "M", ""]), pick(["1", "2", "3", "", "4"])] + (0..<12).map { _ in chance(50) ? digits(2) : "" }
                + [number(), number(), number(), pick(["1", "2", "3", "4", "5", "", "99"])]
        case "GST":
            fields = [time()] + (0..<7).map { _ in number() }
        case "VTG":
            fields = [number(), "T", number(), "M", number(), "N", number(), "K", pick(["A", "D", "N", ""])]
        case "ZDA":
            fields = [time(), String(format: "%02d", Int.random(in: 0...32, using: &random)), String(format: "%02d", Int.random(in: 0...13, using: &random)),
                      pick(["0000", "1970", "1980", "2000", "2038", "2079", "2080", "2106", "9999", "99", ""]), pick(["00", "-13", "14", ""]), "00"]
        default:
            fields = (0..<Int.random(in: 0...20, using: &random)).map { _ in number() }
        }
        if chance(5) { fields.removeLast(Int.random(in: 0...fields.count, using: &random)) }
        if chance(5) { fields += (0..<Int.random(in: 1...30, using: &random)).map { _ in number() } }
        return pick(Self.talkers) + type + "," + fields.joined(separator: ",")
    }

    /// One sentence with its checksum (sometimes wrong, absent or lower case) and line end.
    mutating func sentence() -> [UInt8] {
        let body = sentenceBody()
        let sum = body.utf8.reduce(UInt8(0), ^)
        var checksum = String(format: "*%02X", sum)
        switch Int.random(in: 0..<20, using: &random) {
        case 0: checksum = String(format: "*%02X", sum ^ 1)
        case 1: checksum = ""
        case 2: checksum = checksum.lowercased()
        default: break
        }
        return Array(("$" + body + checksum + pick(["\r\n", "\r\n", "\n", "\r"])).utf8)
    }

    /// A stream of `count` sentences, sometimes with binary between them.
    mutating func stream(sentences count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<count {
            bytes += sentence()
            if chance(3) { bytes += (0..<Int.random(in: 1...40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) } }
        }
        return bytes
    }
}
