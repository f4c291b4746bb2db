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

    /// The journal of the packaged services (packaging/systemd: the `overland` user's
    /// home is /var/lib/overland), or `OVERLAND_PACKAGED_JOURNAL`, a hook for the tests
    /// and for nothing else.
    public static var packagedJournal: String {
        environment("OVERLAND_PACKAGED_JOURNAL") ?? "/var/lib/overland/.local/share/overland/journal"
    }

    /// The packaged services' journal when it is there (or cannot be looked at: the
    /// `overland` user's home is private) and is not `journal`; nil otherwise.
    static func packagedJournalHint(besides journal: String) -> String? {
        let packaged = packagedJournal
        guard packaged != journal else { return nil }
        var info = stat()
        return lstat(packaged, &info) == 0 || errno == EACCES ? packaged : nil
    }

    /// `$XDG_DATA_HOME/overland/journal`, else `~/.local/share/overland/journal`.
    public static var defaultJournal: String {
        let base = environment("XDG_DATA_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/share"
        return base + "/overland/journal"
    }
}
