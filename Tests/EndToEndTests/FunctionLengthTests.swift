import Foundation
import Testing

/// One job per function: no function, initializer or accessor in Sources is longer than 80
/// lines (the house rule), measured from its opening brace's line to its closing one's.
/// String literals and comments are skipped, so "{" in a string counts for nothing; a
/// nested function is part of the one around it. scripts/long-functions.py lists them.
@Suite struct FunctionLengthTests {
    static let limit = 80

    @Test func noFunctionInSourcesIsLongerThanTheLimit() throws {
        var long: [String] = []
        for (file, text) in try FoundationFreeTests.swiftSources() {
            for body in Self.bodies(in: text) where body.lines > Self.limit {
                long.append("\(file):\(body.line) \(body.lines) lines")
            }
        }
        #expect(long.isEmpty, "functions over \(Self.limit) lines: \(long)")
    }

    @Test func theScannerSkipsStringsAndCommentsAndMeasuresNestedBodiesWithTheirFunction() {
        let text = """
            struct S {
                func a() {
                    let brace = "{"  // }
                    /* { */
                    let raw = #"}"#
                    func inner() {
                        print("\\(brace) {")
                    }
                }
                var b: Int { 1 }
            }
            """
        let bodies = Self.bodies(in: text)
        #expect(bodies.map(\.line) == [6, 2], "\(bodies)")
        #expect(bodies.map(\.lines) == [3, 8], "\(bodies)")
    }

    /// Each function's body: the line of its declaration and its length in lines.
    static func bodies(in text: String) -> [(line: Int, lines: Int)] {
        let code = Array(codeOnly(Array(text.utf8)))
        var found: [(line: Int, lines: Int)] = []
        var stack: [(line: Int, declaredAt: Int?)] = []
        var pending: Int?
        var line = 1
        var index = 0
        func isWordByte(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "_") || (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
        }
        while index < code.count {
            let byte = code[index]
            if isWordByte(byte), index == 0 || !(isWordByte(code[index - 1]) || code[index - 1] == UInt8(ascii: ".")) {
                var end = index
                while end < code.count, isWordByte(code[end]) { end += 1 }
                if ["func", "init", "deinit", "subscript"].contains(String(decoding: code[index..<end], as: UTF8.self)) { pending = line }
                index = end
                continue
            }
            switch byte {
            case 0x0A: line += 1
            case UInt8(ascii: "{"):
                stack.append((line, pending))
                pending = nil
            case UInt8(ascii: "}"):
                if let open = stack.popLast(), let declared = open.declaredAt { found.append((declared, line - open.line + 1)) }
                pending = nil
            default: break
            }
            index += 1
        }
        return found
    }

    /// `bytes` with string literals (plain, multi-line, raw, with interpolations) and
    /// comments blanked, line breaks kept.
    static func codeOnly(_ bytes: [UInt8]) -> [UInt8] {
        var out = bytes
        var index = 0
        func blank(_ range: Range<Int>) {
            for at in range where at < out.count && out[at] != 0x0A { out[at] = 0x20 }
        }
        func starts(_ text: String, at at: Int) -> Bool {
            var position = at
            for byte in text.utf8 {
                guard position < bytes.count, bytes[position] == byte else { return false }
                position += 1
            }
            return true
        }
        func find(_ text: String, from start: Int) -> Int? {
            var at = start
            while at < bytes.count {
                if starts(text, at: at) { return at }
                at += 1
            }
            return nil
        }
        while index < bytes.count {
            if starts("//", at: index) {
                let end = bytes[index...].firstIndex(of: 0x0A) ?? bytes.count
                blank(index..<end)
                index = end
            } else if starts("/*", at: index) {
                let end = find("*/", from: index + 2).map { $0 + 2 } ?? bytes.count
                blank(index..<end)
                index = end
            } else if bytes[index] == UInt8(ascii: "#"), let quote = bytes[index...].firstIndex(where: { $0 != UInt8(ascii: "#") }),
                      bytes[quote] == UInt8(ascii: "\"") {
                let hashes = String(repeating: "#", count: quote - index)
                let close = (starts("\"\"\"", at: quote) ? "\"\"\"" : "\"") + hashes
                let end = find(close, from: quote + (starts("\"\"\"", at: quote) ? 3 : 1)).map { $0 + close.utf8.count } ?? bytes.count
                blank(index..<end)
                index = end
            } else if starts("\"\"\"", at: index) {
                let end = find("\"\"\"", from: index + 3).map { $0 + 3 } ?? bytes.count
                blank(index..<end)
                index = end
            } else if bytes[index] == UInt8(ascii: "\"") {
                var end = index + 1
                var depth = 0
                while end < bytes.count, !(bytes[end] == UInt8(ascii: "\"") && depth == 0), bytes[end] != 0x0A {
                    if bytes[end] == UInt8(ascii: "\\"), end + 1 < bytes.count, bytes[end + 1] == UInt8(ascii: "(") {
                        depth += 1
                        end += 2
                        continue
                    }
                    if bytes[end] == UInt8(ascii: "\\") {
                        end += 2
                        continue
                    }
                    if depth > 0, bytes[end] == UInt8(ascii: ")") { depth -= 1 }
                    end += 1
                }
                blank(index..<(end + 1))
                index = end + 1
            } else {
                index += 1
            }
        }
        return out
    }
}
