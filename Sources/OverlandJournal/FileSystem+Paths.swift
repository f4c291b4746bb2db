#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension FileSystem {
    /// The canonical absolute path (symlinks resolved), or nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(decoding: UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)), as: UTF8.self)
    }

    /// The canonical path of `path` even where its last components do not exist yet: the
    /// longest existing prefix resolved, the rest appended.
    static func resolvedPath(_ path: String) -> String {
        var existing = path
        var rest: [String] = []
        while realPath(existing) == nil, existing != "/", existing != "." {
            rest.insert(baseName(of: existing), at: 0)
            existing = parentDirectory(of: existing)
        }
        let base = realPath(existing) ?? existing
        return ([base == "/" ? "" : base] + rest).joined(separator: "/")
    }
}
