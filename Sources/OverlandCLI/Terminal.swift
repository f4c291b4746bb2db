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

    /// Writes one line to standard error.
    public static func error(_ text: String) {
        clearProgress()
        write(text + "\n", to: 2)
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
