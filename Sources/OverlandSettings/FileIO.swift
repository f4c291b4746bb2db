#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OverlandJSON
import OverlandJournal

/// The POSIX calls behind loading and saving the settings file.
enum FileIO {
    static func failure(_ operation: String, _ path: String, _ code: Int32 = errno) -> SettingsError {
        .io(operation: operation, path: path, reason: SystemErrorText.of(code), code: code)
    }

    /// The bytes of the regular file at `path` (a symlink followed: dotfile managers link
    /// settings files), or nil when nothing is there (a link to nothing included). Read
    /// through `fileSystem`, as the files are written (`replace`), so that a simulated disk
    /// serves both. Errors name `path` as given.
    static func readIfExists(_ path: String, limit: Int, in fileSystem: any FileSystem) throws(SettingsError) -> [UInt8]? {
        do throws(JournalError) {
            var target = path
            var kind = try fileSystem.lookUp(path)
            if kind == .symlink {
                guard let resolved = fileSystem.realPath(path) else { return nil }
                target = resolved
                kind = try fileSystem.lookUp(target)
            }
            switch kind {
            case .missing: return nil
            case .file: break
            case .directory: throw .io(operation: "cannot read", path: path, reason: SystemErrorText.of(EISDIR), code: EISDIR)
            case .symlink, .other: throw .untrusted(path: path, reason: "not a regular file")
            }
            // A FIFO put in its place meanwhile is refused, never waited on (`openForReading`).
            return try fileSystem.readFile(target, limit: limit)
        } catch {
            switch error {
            case .io(let operation, _, let reason, let code): throw .io(operation: operation, path: path, reason: reason, code: code)
            case .untrusted(_, let reason) where reason.hasPrefix("larger than"):
                throw .malformed(path: path, line: 1, column: nil, reason: "larger than \(limit) bytes: not a settings file")
            case .untrusted(_, let reason): throw .io(operation: "cannot read", path: path, reason: reason, code: EINVAL)
            default: throw failure(error)
            }
        }
    }

    /// What is wrong with who may read or write the file at `path` (symlinks followed): an
    /// owner other than the caller and root, write access for group or others, or (when it
    /// `holdsToken`) read access for them. Nil when private enough, or missing.
    static func exposure(of path: String, holdsToken: Bool) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let me = getuid()
        if me != 0 && info.st_uid != me && info.st_uid != 0 {
            return "settings file '\(path)' belongs to user \(info.st_uid), not to you (\(me)): its endpoint and token may not be yours"
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o022 != 0 || (holdsToken && mode & 0o044 != 0) else { return nil }
        let octal = String(mode, radix: 8)
        let who = mode & 0o022 != 0 ? "other users can change it" : "other users can read it"
        return "settings file '\(path)' has mode 0\(octal): \(who)\(holdsToken ? ", and it holds the token" : ""); run 'chmod 600 \(path)'"
    }

    /// Runs `body` holding an exclusive lock on the file at `path` (created, mode 0600),
    /// taken through `fileSystem` as the journal takes its own.
    static func withExclusiveLock<T>(_ path: String, in fileSystem: any FileSystem, _ body: () throws -> T) throws -> T {
        let fd: Int32
        do {
            fd = try fileSystem.openLock(path, create: true, readOnlyFallback: false)
            _ = try fileSystem.lock(fd, .exclusive, wait: true, path: path)
        } catch {
            throw failure(error)
        }
        defer {
            fileSystem.unlock(fd)
            fileSystem.close(fd)
        }
        return try body()
    }

    /// Replaces the file at `path` with `bytes`, mode 0600, by the journal's rule written
    /// once (`FileSystem.replaceAtomically`: temporary file, fsync, rename, directory
    /// fsync) through `fileSystem`, so that a simulated disk sees the same writes. After a
    /// crash the file holds the old or the new settings, never a mix.
    static func replace(_ path: String, with bytes: [UInt8], in fileSystem: any FileSystem) throws(SettingsError) {
        do { try fileSystem.replaceAtomically(path, with: bytes) } catch { throw failure(error) }
    }

    /// Creates every missing directory of `path`, each 0700 and durable (its parent
    /// fsynced: `FileSystem.makeDirectories`); existing ones are left as they are (a
    /// symlinked `~/.config` is fine).
    static func makeDirectories(_ path: String, in fileSystem: any FileSystem) throws(SettingsError) {
        do { try fileSystem.makeDirectories(path) } catch { throw failure(error) }
    }

    /// A file system's failure as the settings say one.
    static func failure(_ error: JournalError) -> SettingsError {
        switch error {
        case .io(let operation, let path, let reason, let code): return .io(operation: operation, path: path, reason: reason, code: code)
        case .untrusted(let path, let reason), .exposed(let path, let reason), .notAJournal(let path, let reason):
            return .io(operation: "cannot write", path: path, reason: reason, code: EINVAL)
        default: return .io(operation: "cannot write", path: "", reason: error.description, code: EIO)
        }
    }

    /// `path` with symlinks at its last component followed, so that saving replaces the
    /// file a user's symlink points at (dotfile managers link settings files) rather than
    /// the link. A missing file is its own answer.
    static func followingSymlinks(_ path: String) throws(SettingsError) -> String {
        var current = path
        for _ in 0..<32 {
            var info = stat()
            guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [UInt8](repeating: 0, count: 4097)
            let count = buffer.withUnsafeMutableBytes { readlink(current, $0.baseAddress!.assumingMemoryBound(to: CChar.self), 4096) }
            guard count >= 0 else { throw failure("cannot read link", current) }
            let target = String(decoding: buffer[0..<count], as: UTF8.self)
            current = target.hasPrefix("/") ? target : directory(of: current) + "/" + target
        }
        throw failure("cannot resolve", path, ELOOP)
    }

    /// The directory part of `path`: "/a/b" -> "/a", "/b" -> "/", "b" -> ".".
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The value of the environment variable `name`, nil when unset.
    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The home directory: `$HOME`, else the password database.
    static func home(_ environment: [String: String]) -> String {
        if let home = environment["HOME"], !home.isEmpty { return home }
        if let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir { return String(cString: directory) }
        return "/"
    }
}
