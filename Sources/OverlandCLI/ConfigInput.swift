#if canImport(Glibc)
import Glibc
#endif
import OverlandJSON

/// Secrets read from standard input rather than the command line, where the shell
/// history and the process list (`ps`) would show them.
enum ConfigInput {
    /// The most bytes read for one value.
    static let maximumLength = 64 << 10

    /// The first line of standard input, without its line ending; all of it when it has
    /// no newline. Reading stops at the first newline, so one typed line ends it on a
    /// terminal.
    static func firstLine() throws -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(0, &byte, 1)
            if count < 0 {
                if errno == EINTR { continue }
                throw CommandFailure("cannot read standard input: \(SystemErrorText.of(errno))", status: .ioError)
            }
            if count == 0 || byte == UInt8(ascii: "\n") { break }
            bytes.append(byte)
            if bytes.count > maximumLength {
                throw CommandFailure("standard input: the first line is longer than \(maximumLength) bytes", status: .usage)
            }
        }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CommandFailure("standard input: not utf-8 text", status: .usage)
        }
        return text
    }
}
