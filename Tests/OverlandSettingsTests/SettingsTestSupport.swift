import TestSupport
import Foundation
import Testing
@testable import OverlandSettings

#if canImport(Glibc)
import Glibc
#endif

extension TemporaryDirectory {
    /// Writes `text` to `name` inside the directory; returns the path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let file = path + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    func read(_ name: String) throws -> String {
        try String(decoding: Data(contentsOf: URL(fileURLWithPath: path + "/" + name)), as: UTF8.self)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The permission bits of `path` (symlinks followed).
func mode(of path: String) -> mode_t {
    var info = stat()
    guard stat(path, &info) == 0 else { return 0xFFFF }
    return info.st_mode & 0o7777
}

/// The error `body` throws, or nil.
func settingsError(_ body: () throws -> Void) -> SettingsError? {
    do {
        try body()
        return nil
    } catch let error as SettingsError {
        return error
    } catch {
        Issue.record("not a SettingsError: \(error)")
        return nil
    }
}
