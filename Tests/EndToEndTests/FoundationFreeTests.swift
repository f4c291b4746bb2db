import Foundation
import Testing

/// No target of ours imports Foundation: it links Foundation and ICU (some 40 MiB) into a
/// static release build, on a device that has 30 MiB for the package. One file that imports
/// it for a little maths was enough to double the package once; these tests catch the next.
@Suite struct FoundationFreeTests {
    /// The modules that bring Foundation's full library or ICU with them. FoundationEssentials
    /// (which swift-nio and async-http-client use) has no ICU and stays allowed.
    static let forbiddenModules = ["Foundation", "FoundationNetworking", "FoundationXML", "FoundationInternationalization", "_FoundationICU"]

    /// Every Swift file under Sources: its path below Sources and its text (more than 100
    /// files, or the test that reads them fails).
    static func swiftSources() throws -> [(file: String, text: String)] {
        let sources = PackageSupport.repository + "/Sources"
        let files = try #require(FileManager.default.enumerator(atPath: sources)?.allObjects as? [String])
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 100, "found only \(files.count) Swift files under \(sources)")
        return try files.map { ($0, try String(contentsOfFile: sources + "/" + $0, encoding: .utf8)) }
    }

    @Test func noSourceFileImportsFoundation() throws {
        var offenders: [String] = []
        for (file, text) in try Self.swiftSources() {
            for line in text.split(separator: "\n") where Self.importedModule(line).map(Self.forbiddenModules.contains) == true {
                offenders.append("\(file): \(line)")
            }
        }
        #expect(offenders.isEmpty, "Sources must not import Foundation: \(offenders)")
    }

    /// The built executable, as the loader sees it: none of Foundation's libraries with ICU.
    @Test func executableLinksNeitherFoundationNorICU() throws {
        let readelf = try ToolRunner(executable: PackageSupport.tool("readelf"))
            .run(["-d", ToolRunner.productsDirectory + "/overland"])
        #expect(readelf.succeeded, "\(readelf)")
        let needed = readelf.stdoutLines.filter { $0.contains("(NEEDED)") }
        #expect(needed.count > 3, "\(readelf.stdoutText)")
        let forbidden = needed.filter { line in
            ["libFoundation.so", "libFoundationNetworking", "libFoundationXML", "libFoundationInternationalization",
             "lib_FoundationICU", "libicu"].contains { line.contains($0) }
        }
        #expect(forbidden.isEmpty, "overland links \(forbidden)")
    }

    @Test func importDetectionSeesEveryForm() {
        #expect(Self.importedModule("import Foundation") == "Foundation")
        #expect(Self.importedModule("@preconcurrency import Foundation") == "Foundation")
        #expect(Self.importedModule("  @_exported import FoundationNetworking // why") == "FoundationNetworking")
        #expect(Self.importedModule("import struct Foundation.Date") == "Foundation")
        #expect(Self.importedModule("// import Foundation") == nil)
        #expect(Self.importedModule("/// Foundation's `Process` (which would link Foundation)") == nil)
    }

    /// The module an `import` line names (`import [kind] Module[.Symbol]`, after attributes), or nil.
    static func importedModule(_ line: Substring) -> String? {
        var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        while let first = words.first, first.hasPrefix("@") { words.removeFirst() }
        guard words.first == "import", words.count >= 2 else { return nil }
        let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "typealias", "func", "var", "let"]
        let path = kinds.contains(words[1]) && words.count >= 3 ? words[2] : words[1]
        return path.split(separator: ".").first.map(String.init)
    }
}
