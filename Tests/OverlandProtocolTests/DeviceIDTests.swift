import Testing
import OverlandProtocol

@Suite struct DeviceIDTests {
    static let accepted: [(String, String)] = [
        ("van", "van"),
        ("  alice/phone \n", "alice/phone"),
        ("a b", "a b"),
        ("黄色の車", "黄色の車"),
        (String(repeating: "x", count: 50), String(repeating: "x", count: 50)),
        (String(repeating: "é", count: 50), String(repeating: "é", count: 50)),
    ]

    @Test(arguments: accepted)
    func accepts(input: String, expected: String) throws {
        #expect(try DeviceID.validate(input) == expected)
    }

    @Test func refusesBlank() {
        #expect(throws: DeviceIDError.blank("")) { try DeviceID.validate("") }
        #expect(throws: DeviceIDError.blank(" \t\n")) { try DeviceID.validate(" \t\n") }
    }

    @Test func refusesTooLong() {
        let long = String(repeating: "x", count: 51)
        #expect(throws: DeviceIDError.tooLong(long, length: 51)) { try DeviceID.validate(" " + long + " ") }
        // A family emoji is one Character but 5 scalars: receivers count scalars.
        let family = String(repeating: "👨‍👩‍👧", count: 11)
        #expect(family.count == 11)
        #expect(throws: DeviceIDError.tooLong(family, length: 55)) { try DeviceID.validate(family) }
    }

    @Test func refusesControlCharacters() {
        for bad in ["a\tb", "a\u{0}b", "van\u{1B}[31m", "x\u{7F}", "x\u{85}y"] {
            #expect(throws: DeviceIDError.controlCharacter(bad)) { try DeviceID.validate(bad) }
        }
    }

    @Test func messagesNameTheValueAndTheRule() {
        #expect(DeviceIDError.blank("  ").description == #"device id "  " is blank: use 1 to 50 printable characters, such as "van" or "alice/phone""#)
        #expect(DeviceIDError.controlCharacter("a\tb").description.hasPrefix(#"device id "a\tb" contains a control character: use 1 to 50"#))
        #expect(DeviceIDError.tooLong("xyz", length: 51).description.hasPrefix(#"device id "xyz" is 51 characters long: use 1 to 50"#))
    }
}
