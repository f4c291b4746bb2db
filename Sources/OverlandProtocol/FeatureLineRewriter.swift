import OverlandJSON

/// Rewrites chosen numbers of a Feature line's `properties` as whole numbers, copying
/// every other byte as it is (key order, spacing, unknown members, other record kinds).
///
/// The line is one JSON object (the journal checks that before handing a record on). Only
/// the members of the top-level object's `properties` object are looked at; a number
/// there named in `wholeNumbers` that has a fraction or an exponent is rounded half away
/// from zero. Anything that does not look as expected is copied unchanged.
struct FeatureLineRewriter {
    let wholeNumbers: Set<String>

    func write(_ line: ArraySlice<UInt8>, to output: inout [UInt8]) {
        output.reserveCapacity(output.count + line.count)
        var index = line.startIndex
        // Each open object or array: the key it is the value of (nil for the root and for
        // array elements), and whether it is an object.
        var containers: [(key: String?, isObject: Bool)] = []
        var pendingKey: String?
        var expectingKey = false
        while index < line.endIndex {
            let byte = line[index]
            switch byte {
            case UInt8(ascii: "\""):
                let end = Self.endOfString(line, from: index)
                let text = line[index..<end]
                output.append(contentsOf: text)
                if expectingKey {
                    pendingKey = String(decoding: text.dropFirst().dropLast(), as: UTF8.self)
                    expectingKey = false
                }
                index = end
                continue
            case UInt8(ascii: "{"):
                containers.append((pendingKey, true))
                pendingKey = nil
                expectingKey = true
            case UInt8(ascii: "["):
                containers.append((nil, false))
                pendingKey = nil
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = containers.popLast()
                pendingKey = nil
            case UInt8(ascii: ","):
                // After a comma inside an object comes a key.
                expectingKey = containers.last?.isObject ?? false
                pendingKey = nil
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                var end = index
                while end < line.endIndex, Self.isNumberByte(line[end]) { end += 1 }
                let number = line[index..<end]
                if containers.count == 2, containers[0].isObject, containers[1].isObject, containers[1].key == "properties", let key = pendingKey,
                   wholeNumbers.contains(key), let whole = Self.wholeNumber(number, isAccuracy: key.hasSuffix("_accuracy")) {
                    output.append(contentsOf: whole)
                } else {
                    output.append(contentsOf: number)
                }
                pendingKey = nil
                index = end
                continue
            default:
                break
            }
            output.append(byte)
            index += 1
        }
    }

    /// One past the closing quote of the string starting at `start` (or the line's end).
    private static func endOfString(_ line: ArraySlice<UInt8>, from start: Int) -> Int {
        var index = start + 1
        while index < line.endIndex {
            switch line[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return line.endIndex
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"),
             UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
            return true
        default:
            return false
        }
    }

    /// The number rounded to a whole number, or nil when it already is written as one
    /// (or is not a finite number). A known accuracy (`isAccuracy`, not negative) is at
    /// least 1, as ``LocationFeature/wholeAccuracy(_:)`` says.
    private static func wholeNumber(_ text: ArraySlice<UInt8>, isAccuracy: Bool) -> [UInt8]? {
        guard text.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }),
              let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else { return nil }
        if isAccuracy, let accuracy = LocationFeature.wholeAccuracy(value) {
            var writer = JSONWriter()
            writer.appendInteger(Int64(accuracy))
            return writer.bytes
        }
        let rounded = value.rounded(.toNearestOrAwayFromZero)
        var writer = JSONWriter()
        writer.appendDecimal(rounded == 0 ? 0 : rounded, maxFractionDigits: 0)
        return writer.bytes
    }
}
