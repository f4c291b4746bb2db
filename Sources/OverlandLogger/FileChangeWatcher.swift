#if canImport(Glibc)
import Glibc
#endif

/// Notices that a file changed (its modification time, size or inode), looking at most
/// once every `interval` seconds.
public final class FileChangeWatcher {
    private let path: String
    private let interval: Double
    private var lastLook = -Double.infinity
    private var signature: [Int64]

    public init(path: String, interval: Double = 2) {
        self.path = path
        self.interval = interval
        signature = Self.signature(of: path)
    }

    public func hasChanged(now: Double) -> Bool {
        guard now - lastLook >= interval else { return false }
        lastLook = now
        let current = Self.signature(of: path)
        defer { signature = current }
        return current != signature
    }

    private static func signature(of path: String) -> [Int64] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [] }
        return [Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec), Int64(info.st_size), Int64(info.st_ino)]
    }
}
