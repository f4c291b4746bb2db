import Testing
import OverlandSettings

/// `SetupLink.appliedWarnings`: what `overland setup` says once a link is applied.
@Suite struct SetupLinkWarningTests {
    @Test func aLinkCutAtItsFirstAmpersandIsSaid() throws {
        let cut = try SetupLink(parsing: "overland://setup?url=https%3A%2F%2Fgps.example%2Fin")
        let lines = cut.appliedWarnings(link: "overland://setup?url=https%3A%2F%2Fgps.example%2Fin", clearedToken: false)
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("the link holds nothing after url=: ") == true)
        // Read from standard input, the shell cut nothing.
        #expect(cut.appliedWarnings(link: nil, clearedToken: false).isEmpty)
    }

    @Test func aClearedTokenSaysWhy() throws {
        let none = try SetupLink(parsing: "overland://setup?url=https%3A%2F%2Fgps.example%2Fin&device_id=van")
        #expect(none.appliedWarnings(link: nil, clearedToken: true) == [
            "it has no token=: the token is cleared (it must never reach the new server); "
                + "set the new one with 'overland config set token --stdin' if the server needs one",
        ])
        let empty = try SetupLink(parsing: "overland://setup?url=https%3A%2F%2Fgps.example%2Fin&token=")
        #expect(empty.appliedWarnings(link: nil, clearedToken: true).first?.hasPrefix("its token= is empty: ") == true)
        #expect(empty.appliedWarnings(link: nil, clearedToken: false).isEmpty)
    }
}
