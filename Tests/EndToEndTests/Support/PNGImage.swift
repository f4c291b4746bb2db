import CZlib

/// A PNG decoded to RGBA, enough for Chromium's screenshots: 8-bit RGB or RGBA, not
/// interlaced, the five row filters, the image data inflated by the system zlib.
struct PNGImage {
    let width: Int
    let height: Int
    /// RGBA, row after row.
    let pixels: [UInt8]

    struct Failure: Error, CustomStringConvertible { let description: String }

    init(bytes: [UInt8]) throws {
        guard bytes.count > 8, bytes[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw Failure(description: "not a PNG")
        }
        var offset = 8
        var header: (width: Int, height: Int, depth: UInt8, type: UInt8, interlace: UInt8)?
        var data: [UInt8] = []
        while offset + 8 <= bytes.count {
            let length = Self.uint32(bytes, offset)
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard offset + 12 + length <= bytes.count else { throw Failure(description: "chunk \(type) runs past the end") }
            let body = Array(bytes[offset + 8..<offset + 8 + length])
            if type == "IHDR" { header = (Self.uint32(body, 0), Self.uint32(body, 4), body[8], body[9], body[12]) }
            if type == "IDAT" { data += body }
            if type == "IEND" { break }
            offset += 12 + length
        }
        guard let header, header.depth == 8, header.type == 2 || header.type == 6, header.interlace == 0 else {
            throw Failure(description: "only 8-bit RGB or RGBA PNGs without interlace are read")
        }
        let channels = header.type == 6 ? 4 : 3
        let stride = header.width * channels
        var raw = [UInt8](repeating: 0, count: header.height * (stride + 1))
        var rawLength = uLongf(raw.count)
        let status = raw.withUnsafeMutableBufferPointer { out in
            data.withUnsafeBufferPointer { uncompress(out.baseAddress, &rawLength, $0.baseAddress, uLong($0.count)) }
        }
        guard status == Z_OK, Int(rawLength) == raw.count else { throw Failure(description: "image data does not inflate (zlib \(status))") }
        width = header.width
        height = header.height
        pixels = try Self.unfilter(raw, width: header.width, height: header.height, channels: channels)
    }

    /// Undoes each row's filter (PNG specification, section 9) and widens to RGBA.
    private static func unfilter(_ raw: [UInt8], width: Int, height: Int, channels: Int) throws -> [UInt8] {
        let stride = width * channels
        var previous = [UInt8](repeating: 0, count: stride)
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        for row in 0..<height {
            let start = row * (stride + 1)
            let filter = raw[start]
            var line = Array(raw[start + 1..<start + 1 + stride])
            for index in 0..<stride {
                let left = index >= channels ? Int(line[index - channels]) : 0
                let up = Int(previous[index])
                let upLeft = index >= channels ? Int(previous[index - channels]) : 0
                let predictor: Int
                switch filter {
                case 0: predictor = 0
                case 1: predictor = left
                case 2: predictor = up
                case 3: predictor = (left + up) / 2
                case 4: predictor = paeth(left, up, upLeft)
                default: throw Failure(description: "row \(row) has filter \(filter)")
                }
                line[index] = UInt8(truncatingIfNeeded: Int(line[index]) + predictor)
            }
            for x in 0..<width {
                for channel in 0..<channels { rgba[(row * width + x) * 4 + channel] = line[x * channels + channel] }
            }
            previous = line
        }
        return rgba
    }

    private static func paeth(_ a: Int, _ b: Int, _ c: Int) -> Int {
        let p = a + b - c
        let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
        return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
    }

    private static func uint32(_ bytes: [UInt8], _ at: Int) -> Int {
        Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
    }

    /// The pixel at (x, y), nil outside.
    func rgb(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int)? {
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        let at = (y * width + x) * 4
        return (Int(pixels[at]), Int(pixels[at + 1]), Int(pixels[at + 2]))
    }

    /// Whether (x, y) is within `tolerance` (per channel) of `hex` (#rrggbb).
    func matches(_ x: Int, _ y: Int, _ hex: String, tolerance: Int = 40) -> Bool {
        guard let pixel = rgb(x, y) else { return false }
        let color = Self.color(hex)
        return abs(pixel.r - color.r) <= tolerance && abs(pixel.g - color.g) <= tolerance && abs(pixel.b - color.b) <= tolerance
    }

    /// Whether a pixel within `radius` of (x, y) matches `hex`.
    func hasColor(near x: Double, _ y: Double, radius: Int, _ hex: String) -> Bool {
        let cx = Int(x.rounded()), cy = Int(y.rounded())
        for dy in -radius...radius { for dx in -radius...radius where matches(cx + dx, cy + dy, hex) { return true } }
        return false
    }

    static func color(_ hex: String) -> (r: Int, g: Int, b: Int) {
        let value = Int(hex.dropFirst(), radix: 16) ?? 0
        return (value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF)
    }
}
