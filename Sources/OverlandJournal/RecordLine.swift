#if canImport(Glibc)
import Glibc
#endif
import OverlandJSON

/// What a record is: one JSON object on one line, within a size limit.
public enum RecordLine {
    /// The longest record a journal accepts or reads back, in bytes without the newline.
    public static let maxBytes = 65_536

    /// Nil if `line` (without its newline) is an acceptable record, else the reason.
    /// `checkJSON` false checks only the size and the newline (for records this package
    /// encoded itself).
    public static func problem(with line: UnsafeRawBufferPointer, checkJSON: Bool = true) -> String? {
        if line.isEmpty { return "empty line" }
        if line.count > maxBytes { return "line of \(line.count) bytes, over the \(maxBytes)-byte limit" }
        if newline(in: line, from: 0) != nil { return "line contains a newline" }
        if checkJSON && !JSONValidator.isValidObject(line) { return "line is not one JSON object" }
        return nil
    }

    /// Checks newline-terminated lines: the count and each line. Nil when all is well.
    static func checkLines(_ payload: [UInt8], expectedCount: Int, checkJSON: Bool = true) -> String? {
        payload.withUnsafeBytes { buffer -> String? in
            guard buffer.last == UInt8(ascii: "\n") else { return "data does not end with a newline" }
            var start = 0
            var count = 0
            while start < buffer.count {
                guard let end = newline(in: buffer, from: start) else { break }
                count += 1
                if count > expectedCount { return "more lines than the \(expectedCount) records announced" }
                if let problem = problem(with: UnsafeRawBufferPointer(rebasing: buffer[start..<end]), checkJSON: checkJSON) {
                    return "record \(count): \(problem)"
                }
                start = end + 1
            }
            return count == expectedCount ? nil : "\(count) lines where \(expectedCount) records were announced"
        }
    }
}

/// The offset of the first newline at or after `start`, found with memchr (this is the
/// readers' hot path).
@inline(__always)
func newline(in buffer: UnsafeRawBufferPointer, from start: Int) -> Int? {
    guard start < buffer.count, let base = buffer.baseAddress else { return nil }
    guard let found = memchr(base + start, Int32(UInt8(ascii: "\n")), buffer.count - start) else { return nil }
    return base.distance(to: UnsafeRawPointer(found))
}
