import TestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// On a Pi's terms (issue 25): the package a user installs, from a real static release
/// build, is at most 30 MiB installed and links neither Foundation nor ICU, dynamically
/// (readelf -d) or statically (their symbols in the unstripped executable). One import of
/// Foundation for a little maths once took the package from 25 to 68 MiB unnoticed.
///
/// The release build has its own scratch path (`.build/size-check`), seeded with the
/// dependencies' checkouts of `.build`, so that it neither waits on the lock of the
/// running `swift test` nor fetches anything; a clean clone builds it in about 8 minutes,
/// a later run only what changed.
@Suite struct PackageSizeTests {
    /// The budget: the package's Installed-Size, in KiB.
    static let limitKiB = 30 * 1024

    /// Libraries an executable must not need: Foundation's with ICU.
    static let forbiddenLibraries = ["libFoundation.so", "libFoundationNetworking", "libFoundationXML",
                                     "libFoundationInternationalization", "lib_FoundationICU", "libicu"]
    /// Symbols that tell Foundation or ICU was linked in statically: the Swift modules'
    /// mangled prefixes, and ICU's C entry points that Foundation calls.
    static let forbiddenSymbols = ["$s10Foundation", "$s26FoundationInternationalization", "$s20FoundationNetworking",
                                   "$s13FoundationXML", "ucal_open", "ucol_open", "ubrk_open", "udat_open"]

    static var scratch: String { PackageSupport.repository + "/.build/size-check" }

    @Test func releasePackageFitsIn30MiBWithoutFoundationOrICU() throws {
        let binary = try Self.releaseBuild()
        let linked = try Self.linkedForbidden(binary)
        #expect(linked.isEmpty, "overland links \(linked)")
        let symbols = try Self.forbiddenSymbols(in: binary)
        #expect(symbols.isEmpty, "overland carries Foundation or ICU: \(symbols.prefix(5)) (\(symbols.count) symbols)")

        let output = try TemporaryDirectory(prefix: "overland-size")
        let built = try ToolRunner(executable: PackageSupport.repository + "/scripts/package")
            .run(["--bin-dir", Self.scratch + "/release", "--output", output.appending("out")])
        let deb = try #require(built.stdoutLines.last, "scripts/package: \(built)")
        #expect(built.succeeded && deb.hasSuffix(".deb"), "scripts/package: \(built)")
        let field = try ToolRunner(executable: PackageSupport.tool("dpkg-deb")).run(["-f", deb, "Installed-Size"])
        let installed = try #require(Int(field.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)), "\(field)")
        #expect(installed > 1024, "an Installed-Size of \(installed) KiB is not a real build's")
        #expect(installed <= Self.limitKiB, "Installed-Size \(installed) KiB, above the \(Self.limitKiB) KiB budget")
        Figures.record("package: static release build", "Installed-Size (KiB)", installed)
    }

    /// The checks see what they look for: the test runner itself links Foundation.
    @Test func theChecksCatchFoundation() throws {
        let runner = try #require(Self.testRunner(), "cannot find the test runner's executable")
        let linked = try Self.linkedForbidden(runner)
        #expect(!linked.isEmpty, "\(runner) links Foundation, and the check did not see it")
    }

    /// Builds `overland` in release (static) into the scratch path; its path.
    static func releaseBuild() throws -> String {
        try seedScratch()
        let swift = try SystemTool.require("swift")
        // A guard against a hang, not a measure: a clean release build takes ~8 minutes alone.
        let build = try ToolRunner(executable: swift).run(
            ["build", "-c", "release", "--product", "overland", "--package-path", PackageSupport.repository,
             "--scratch-path", scratch], timeout: .seconds(5400))
        try #require(build.succeeded, "swift build -c release: \(build)")
        return scratch + "/release/overland"
    }

    /// Gives the scratch path the dependencies' checkouts and their resolved state from
    /// `.build`, once: the release build then needs no network.
    static func seedScratch() throws {
        let build = PackageSupport.repository + "/.build"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        for name in ["checkouts", "repositories", "workspace-state.json"]
        where access(build + "/" + name, F_OK) == 0 && access(scratch + "/" + name, F_OK) != 0 {
            let copy = try ToolRunner(executable: PackageSupport.tool("cp")).run(["-a", build + "/" + name, scratch + "/" + name])
            try #require(copy.succeeded, "cp: \(copy)")
        }
    }

    /// The forbidden libraries among `binary`'s NEEDED entries.
    static func linkedForbidden(_ binary: String) throws -> [String] {
        let readelf = try ToolRunner(executable: PackageSupport.tool("readelf")).run(["-d", binary])
        try #require(readelf.succeeded, "\(readelf)")
        let needed = readelf.stdoutLines.filter { $0.contains("(NEEDED)") }
        try #require(!needed.isEmpty, "readelf -d \(binary): \(readelf.stdoutText.prefix(500))")
        return needed.filter { line in forbiddenLibraries.contains { line.contains($0) } }
    }

    /// Foundation's and ICU's symbols in `binary`'s symbol table.
    static func forbiddenSymbols(in binary: String) throws -> [String] {
        let readelf = try ToolRunner(executable: PackageSupport.tool("readelf")).run(["-s", "-W", binary])
        try #require(readelf.succeeded, "\(readelf)")
        try #require(readelf.stdoutLines.count > 1000, "no symbol table in \(binary): is it stripped?")
        return readelf.stdoutLines.compactMap { line in
            guard let name = line.split(separator: " ").last else { return nil }
            return forbiddenSymbols.contains { name.hasPrefix($0) } ? String(name) : nil
        }
    }

    /// The executable running these tests (it links Foundation), or nil.
    static func testRunner() -> String? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
    }
}
