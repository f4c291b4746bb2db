#if canImport(Glibc)
import Glibc
#endif

/// Where things live by default, per the XDG base directory specification.
public enum Paths {
    static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    static var home: String {
        if let home = environment("HOME") { return home }
        if let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir { return String(cString: directory) }
        return "/"
    }

    /// `$XDG_DATA_HOME/overland/journal`, else `~/.local/share/overland/journal`.
    public static var defaultJournal: String {
        let base = environment("XDG_DATA_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/share"
        return base + "/overland/journal"
    }
}
