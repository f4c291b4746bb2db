import OverlandJSON

/// Finds where each object key of a JSON document starts, so that an error about a
/// key or its value can name the line.
///
/// Runs only over documents `JSONParser` has already accepted, so it need not check the
/// grammar: it tracks strings and nesting and records each key under its path (the
/// keys of the enclosing objects; array elements count as ""). A repeated key is kept in
/// `duplicates`, since the parser keeps only its last value and the earlier one would be
/// silently lost.
///
/// Keys nested deeper than `maxDepth` are not recorded (the parser refuses such a file
/// anyway): a key's path is as long as its depth, so recording every key of a file nested
/// a million deep would cost memory and time growing with the square of the depth. Past
/// `maxDepth` only a count of open containers is kept, and the walk is linear.
struct KeyLocator {
    /// The settings file's nesting limit (`SettingsFile.maximumDepth`).
    static let defaultMaxDepth = 16

    private(set) var offsets: [[String]: Int] = [:]
    /// Repeated keys: the path, the earlier offset and the later offset.
    private(set) var duplicates: [(path: [String], first: Int, second: Int)] = []
    let lineStarts: [Int]

    init(_ bytes: [UInt8], maxDepth: Int = KeyLocator.defaultMaxDepth) {
        var starts = [0]
        for (index, byte) in bytes.enumerated() where byte == 0x0A { starts.append(index + 1) }
        lineStarts = starts

        struct Frame {
            var isObject: Bool
            var key = ""
            var expectingKey: Bool
        }
        var stack: [Frame] = []
        // Containers open beyond `maxDepth`, counted instead of kept.
        var excess = 0
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                var end = index + 1
                var escaped = false
                while end < bytes.count && bytes[end] != UInt8(ascii: "\"") {
                    if bytes[end] == UInt8(ascii: "\\") {
                        escaped = true
                        end += 1
                    }
                    end += 1
                }
                if excess == 0, let top = stack.last, top.isObject, top.expectingKey {
                    let key: String
                    if escaped {
                        key = (try? JSONParser.parse(bytes[index...min(end, bytes.count - 1)]))?.string ?? ""
                    } else {
                        key = String(decoding: bytes[(index + 1)..<min(end, bytes.count)], as: UTF8.self)
                    }
                    stack[stack.count - 1].key = key
                    stack[stack.count - 1].expectingKey = false
                    let path = stack.map(\.key)
                    if let earlier = offsets[path] { duplicates.append((path, earlier, index)) }
                    offsets[path] = index
                }
                index = end + 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if stack.count < maxDepth {
                    let isObject = bytes[index] == UInt8(ascii: "{")
                    stack.append(Frame(isObject: isObject, expectingKey: isObject))
                } else {
                    excess += 1
                }
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if excess > 0 { excess -= 1 } else if !stack.isEmpty { stack.removeLast() }
                index += 1
            case UInt8(ascii: ","):
                if excess == 0, let top = stack.last, top.isObject { stack[stack.count - 1].expectingKey = true }
                index += 1
            default:
                index += 1
            }
        }
    }

    /// The line (from 1) of the key at `path`, or 1 when it is not found.
    func line(of path: [String]) -> Int {
        offsets[path].map(line(atOffset:)) ?? 1
    }

    /// The line (from 1) holding the byte at `offset`.
    func line(atOffset offset: Int) -> Int {
        position(atOffset: offset).line
    }

    /// The line and column (both from 1, the column in bytes) of the byte at `offset`.
    func position(atOffset offset: Int) -> (line: Int, column: Int) {
        // The last line start at or before offset.
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return (low + 1, offset - lineStarts[low] + 1)
    }
}
