#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A private directory (0700) under `$TMPDIR` (or /tmp), removed with everything in it
/// when the value goes away: what every test that touches files starts from.
public final class TemporaryDirectory: @unchecked Sendable {
    /// The directory's absolute path.
    public let path: String

    /// `prefix` names the directory (`/tmp/PREFIX-XXXXXX`), so a leftover says whose it is.
    public init(prefix: String = "overland-test") throws {
        let environment = getenv("TMPDIR").map { String(cString: $0) } ?? ""
        let base = environment.isEmpty ? "/tmp" : environment
        var template = Array((base + "/" + prefix + "-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw TestSupportError("mkdtemp in \(base): errno \(errno)") }
        path = String(cString: made)
    }

    deinit { Self.remove(path) }

    /// A path inside the directory.
    public func appending(_ component: String) -> String { path + "/" + component }

    /// Removes `path` and, for a directory, everything below it (symbolic links are
    /// removed, never followed). Best effort: a test's leftovers never fail it.
    public static func remove(_ path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        if status.st_mode & S_IFMT == S_IFDIR {
            chmod(path, 0o700)
            if let directory = opendir(path) {
                var names: [String] = []
                while let entry = readdir(directory) {
                    let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                    if name != "." && name != ".." { names.append(name) }
                }
                closedir(directory)
                for name in names { remove(path + "/" + name) }
            }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}

/// A failure of the test support itself (a temporary directory that could not be made).
public struct TestSupportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
