import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 21: `overland destination add x` silently replaced a symlink at `cursors/x.json`
/// (and at `state/sync-x.json`). It is refused as every other journal file is: one line
/// naming the file, exit 65, the link and its target untouched, the destination not added.
@Suite("a symlink at a destination's cursor is refused")
struct SecurityCursorSymlinkTests {
    @Test(arguments: ["cursors/x.json", "state/sync-x.json"])
    func addRefusesASymlinkInPlaceOfItsFiles(file: String) throws {
        let sandbox = try DestinationCommandTests.prepare()
        // A second destination makes cursors/ (the first named cursor copies the default's).
        let other = try DestinationCommandTests.destination(sandbox, ["add", "y", "http://127.0.0.1:9/y"])
        #expect(other.succeeded, "\(other)")
        let target = sandbox.directory.appending("elsewhere.json")
        let original = #"{"keep":"me"}"#
        try Data(original.utf8).write(to: URL(fileURLWithPath: target))
        let link = sandbox.journal + "/" + file
        try FileManager.default.createDirectory(atPath: (link as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        #expect(symlink(target, link) == 0)

        let added = try DestinationCommandTests.destination(sandbox, ["add", "x", "http://127.0.0.1:9/x"])
        added.expectExit(65)
        #expect(added.stderrLines == ["overland destination: refusing '\(link)': is a symbolic link"], "\(added.stderrText)")
        var info = stat()
        #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, "the link is left as it was")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == original, "its target is untouched")
        let list = try DestinationCommandTests.destination(sandbox, ["list"])
        #expect(!list.stdoutLines.contains { $0.hasPrefix("x ") }, "\(list.stdoutText)")
    }
}
