#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The one way a system error's text (`strerror`) is shown: within a line, after a colon,
/// so it starts in lower case ("cannot open 'x': permission denied"), whichever library
/// failed (issue 33: "Permission denied" and "permission denied" both appeared).
public enum SystemErrorText {
    public static func of(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        let reason = String(cString: text)
        guard let first = reason.first else { return "error \(code)" }
        return first.lowercased() + reason.dropFirst()
    }
}
