import Foundation
import Testing

/// `--help` on an 80-column terminal, and the shell completions, as a user meets them.
@Suite struct HelpAndCompletionTests {
    /// Every command path of `tool`, from the SUBCOMMANDS sections of its help.
    static func commandPaths(_ tool: ToolRunner, under path: [String] = []) throws -> [[String]] {
        let help = try tool.run(path + ["--help"], environment: ["COLUMNS": "80"])
        var paths = [path]
        var inSubcommands = false
        for line in help.stdoutLines {
            if line == "SUBCOMMANDS:" { inSubcommands = true; continue }
            guard inSubcommands else { continue }
            if line.isEmpty || !line.hasPrefix("  ") { inSubcommands = false; continue }
            // "  name   abstract" (a continued abstract is indented further).
            let trimmed = line.dropFirst(2)
            guard !trimmed.hasPrefix(" "), let name = trimmed.split(separator: " ").first else { continue }
            let subcommand = String(name)
            if subcommand == "help" { continue }
            paths += try commandPaths(tool, under: path + [subcommand])
        }
        return paths
    }

    /// No example in any `--help` breaks mid-command at 80 columns: every line of an
    /// Examples block keeps its indentation (a wrapped one starts at column 0) and fits.
    @Test func examplesDoNotWrapAt80Columns() throws {
        var checked = 0
        for product in ["overland", "overland-log", "overland-sync"] {
            let tool = ToolRunner(product: product)
            for path in try Self.commandPaths(tool) {
                let help = try tool.run(path + ["--help"], environment: ["COLUMNS": "80"])
                #expect(help.succeeded, "\(product) \(path): \(help)")
                var inExamples = false
                for line in help.stdoutLines {
                    if line.hasSuffix("Examples:") || line.hasSuffix("Example:") { inExamples = true; continue }
                    guard inExamples else { continue }
                    if line.isEmpty { inExamples = false; continue }
                    checked += 1
                    #expect(line.hasPrefix("  ") && line.count <= 80,
                            "\(product) \(path.joined(separator: " ")) --help: an example wraps: '\(line)'")
                }
            }
        }
        #expect(checked > 20, "examples found: \(checked)")
    }

    /// The completion scripts offer the values: export formats, setting keys, protocols,
    /// profiles, trip modes; destination names are asked of the command when completing.
    @Test func completionsOfferValues() throws {
        let overland = ToolRunner(product: "overland")
        let bash = try overland.run(["--generate-completion-script", "bash"])
        #expect(bash.succeeded, "\(bash)")
        let script = bash.stdoutText
        // bash lists the words as 'a'$'\n''b'.
        func listed(_ words: [String]) -> String { "'" + words.joined(separator: "'$'\\n''") + "'" }
        for words in [["gpx", "geojson", "csv"], ["overland", "owntracks", "traccar", "mqtt"], ["high-resolution", "battery-saving"],
                      ["none", "wayfinder", "compass", "dawarich"], ["send_interval"], ["trip.logging_mode"], ["bicycle"]] {
            #expect(script.contains(listed(words)), "the bash completion offers no \(words)")
        }
        #expect(script.contains("---completion destination remove -- positional@0"), "destination names are not completed")

        // What the shell asks for destination names, answered from destinations.json.
        let sandbox = try ReliabilitySandbox(prefix: "overland-completion")
        try sandbox.writeSettings(#"{"endpoint": "http://127.0.0.1:9/in"}"#)
        for name in ["traccar", "backup"] {
            #expect(try sandbox.overland.run(["destination", "add", name, "http://127.0.0.1:9/\(name)", "--journal", sandbox.journal]).succeeded)
        }
        let all = try sandbox.overland.run(["---completion", "destination", "show", "--", "positional@0", "0", "0", ""],
                                           environment: ["SAP_SHELL": "bash"])
        #expect(all.succeeded, "\(all)")
        #expect(Set(all.stdoutLines.filter { !$0.isEmpty }) == ["default", "traccar", "backup"], "\(all.stdoutText)")
        let removable = try sandbox.overland.run(["---completion", "destination", "remove", "--", "positional@0", "0", "1", "b"],
                                                 environment: ["SAP_SHELL": "bash"])
        #expect(removable.stdoutLines.filter { !$0.isEmpty } == ["backup"], "\(removable.stdoutText)")
        let sync = try sandbox.sync.run(["---completion", "--", "--to", "0", "0", ""], environment: ["SAP_SHELL": "bash"])
        #expect(Set(sync.stdoutLines.filter { !$0.isEmpty }) == ["default", "traccar", "backup"], "\(sync)")
    }
}
