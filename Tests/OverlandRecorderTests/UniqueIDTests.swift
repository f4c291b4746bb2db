import Foundation
import Testing

@testable import OverlandRecorder

/// The unique id: HMAC-SHA-256 of overland's application id keyed with the machine id,
/// formatted as a version 4 UUID (as systemd's sd_id128_get_machine_app_specific does).
@Suite struct UniqueIDTests {
    static let machineID = "3d1219c7c4c5404aaa1f6d2a48adfda4"
    static var uuidPattern: Regex<Substring> { /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/ }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func isAStableVersion4UUID() throws {
        let id = try #require(UniqueID.derive(machineID: Self.machineID))
        #expect(id.wholeMatch(of: Self.uuidPattern) != nil, "\(id)")
        #expect(UniqueID.derive(machineID: Self.machineID) == id)
        #expect(UniqueID.derive(machineID: Self.machineID + "\n") == id, "as read from /etc/machine-id")
        #expect(UniqueID.derive(machineID: Self.machineID.uppercased()) == id)
    }

    @Test func differentMachinesDiffer() throws {
        let ids = try ["3d1219c7c4c5404aaa1f6d2a48adfda4", "3d1219c7c4c5404aaa1f6d2a48adfda5",
                       "00000000000000000000000000000000", "ffffffffffffffffffffffffffffffff"]
            .map { try #require(UniqueID.derive(machineID: $0)) }
        #expect(Set(ids).count == ids.count)
    }

    @Test func neverContainsTheMachineID() throws {
        let id = try #require(UniqueID.derive(machineID: Self.machineID))
        let digits = id.replacingOccurrences(of: "-", with: "")
        #expect(digits != Self.machineID)
        // No 8-digit run of the machine id survives (a chance match has odds of about 1e-8).
        for start in 0...(32 - 8) {
            let run = Self.machineID.dropFirst(start).prefix(8)
            #expect(!digits.contains(run), "\(run)")
        }
    }

    @Test(arguments: ["", "3d1219c7", "3d1219c7c4c5404aaa1f6d2a48adfda4ff", "3d1219c7c4c5404aaa1f6d2a48adfdzz",
                      "3d1219c7-c4c5-404a-aa1f-6d2a48adfda4"])
    func malformedMachineIDs(machineID: String) {
        #expect(UniqueID.derive(machineID: machineID) == nil)
    }

    @Test func ofThisMachineReadsTheFileGiven() throws {
        let path = NSTemporaryDirectory() + "/overland-machine-id-\(UInt64.random(in: 0...UInt64.max))"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data((Self.machineID + "\n").utf8).write(to: URL(fileURLWithPath: path))
        #expect(UniqueID.ofThisMachine(path: path) == UniqueID.derive(machineID: Self.machineID))
        #expect(UniqueID.ofThisMachine(path: path + ".missing") == nil)
    }

    // MARK: SHA-256 and HMAC against published vectors

    @Test(arguments: [
        // FIPS 180-4 examples (NIST CSRC "SHA256.pdf") and the empty message.
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func sha256Vectors(message: String, digest: String) {
        #expect(Self.hex(SHA256.hash(Array(message.utf8))) == digest)
    }

    @Test func sha256AcrossBlockBoundaries() throws {
        // 55, 56 and 64 bytes: the padding fits, just misses, or needs a block of its own.
        let expected = [
            55: "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
            56: "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
            64: "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb",
        ]
        for (count, digest) in expected {
            #expect(Self.hex(SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: count))) == digest, "\(count) bytes")
        }
    }

    @Test(arguments: [
        // RFC 4231 test cases 1, 2 and 6 (a key longer than the block is hashed first).
        ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        ([UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
    ])
    func hmacVectors(key: [UInt8], message: [UInt8], mac: String) {
        #expect(Self.hex(SHA256.hmac(key: key, message: message)) == mac)
    }

    /// The whole derivation against Python's hmac module, an independent implementation.
    @Test func derivationMatchesPython() throws {
        let python = try #require(Self.findExecutable("python3"),
                                  "python3 is not installed (Debian package python3): run `bash scripts/install-dependencies`")
        let script = """
            import hmac, hashlib, sys
            app = bytes.fromhex(sys.argv[1])
            for machine in sys.argv[2:]:
                d = bytearray(hmac.new(bytes.fromhex(machine), app, hashlib.sha256).digest()[:16])
                d[6] = (d[6] & 0x0F) | 0x40
                d[8] = (d[8] & 0x3F) | 0x80
                h = d.hex()
                print(h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32])
            """
        let machines = [Self.machineID, "00000000000000000000000000000000", "0123456789abcdef0123456789abcdef"]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, Self.hex(UniqueID.applicationID)] + machines
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let expected = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(expected.count == machines.count)
        #expect(machines.map { UniqueID.derive(machineID: $0) ?? "nil" } == expected)
    }

    static func findExecutable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
