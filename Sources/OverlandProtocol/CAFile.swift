#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import OverlandJSON

/// The one check of a `ca_file` (a PEM file of certificate authorities to trust instead of
/// the system's), for HTTP and MQTT destinations alike: made before any connection, so a
/// file that is not there is the user's to fix (exit 78), not a network failure to try
/// again later. Whether it holds certificates is for the TLS stack that loads it.
public enum CAFile {
    /// Why `path` cannot serve as a CA file, or nil when it is a readable regular file.
    public static func problem(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 { return "cannot read ca file '\(path)': \(SystemErrorText.of(errno))" }
        var info = stat()
        let isFile = fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        close(fd)
        return isFile ? nil : "ca file '\(path)' is not a regular file"
    }
}
