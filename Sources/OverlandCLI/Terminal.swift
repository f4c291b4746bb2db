#if canImport(Glibc)
import Glibc
#endif
import OverlandJSON

/// Writing to the terminal: unbuffered writes to stdout and stderr, and a progress line
/// that is drawn only when stderr is a terminal.
public enum Terminal {
    /// Writes text to standard output, control characters (but newline and tab) shown as `?`.
    public static func output(_ text: String) { write(printable(text), to: 1) }

    /// Writes one line to standard output, control characters shown as `?`.
    public static func line(_ text: String) { write(printable(text) + "\n", to: 1) }

    /// Writes one line to standard error, control characters shown as `?`.
    public static func error(_ text: String) {
        clearProgress()
        write(printable(text) + "\n", to: 2)
    }

    /// `text` with control characters (but newline and tab) and bidirectional overrides as
    /// `?`: messages quote names from journals that may come from an untrusted stick, and
    /// such a name must not move, clear or recolour the terminal.
    /// Every line the commands print goes through here (`output`, `line`, `error`); the
    /// rule is `PrintableText`'s, which CSV export shares.
    static func printable(_ text: String) -> String {
        PrintableText.sanitised(text)
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
