#if canImport(Glibc)
import Glibc
#endif

/// Writing to the terminal: unbuffered writes to stdout and stderr, and a progress line
/// that is drawn only when stderr is a terminal.
public enum Terminal {
    /// Writes text to standard output as is.
    public static func output(_ text: String) { write(text, to: 1) }

    /// Writes one line to standard output.
    public static func line(_ text: String) { write(text + "\n", to: 1) }

    /// Writes one line to standard error, control characters shown as `?`.
    public static func error(_ text: String) {
        clearProgress()
        write(printable(text) + "\n", to: 2)
    }

    /// `text` with control characters (but newline and tab) and bidirectional overrides as
    /// `?`: messages quote names from journals that may come from an untrusted stick, and
    /// such a name must not move, clear or recolour the terminal.
    static func printable(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let value = scalar.value
            let unsafe = (value < 0x20 && value != 0x0A && value != 0x09) || (0x7F...0x9F).contains(value)
                || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
            result.append(unsafe ? "?" : scalar)
        }
        return String(result)
    }

    /// True when standard error is a terminal (progress and colours make sense).
    public static let stderrIsTerminal = isatty(2) == 1

    nonisolated(unsafe) private static var progressShown = false

    /// Replaces the progress line on a terminal; does nothing otherwise.
    public static func progress(_ text: String) {
        guard stderrIsTerminal else { return }
        write("\r\u{1B}[K" + text, to: 2)
        progressShown = true
    }

    /// Removes the progress line, if one is shown.
    public static func clearProgress() {
        guard progressShown else { return }
        write("\r\u{1B}[K", to: 2)
        progressShown = false
    }

    static func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
