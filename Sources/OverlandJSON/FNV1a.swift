/// The 64-bit FNV-1a hash of text fields, each followed by a NUL byte but the last, as 16
/// hex digits: a stable short name for what the fields say (an MQTT client id, a receiver's
/// fingerprint) that is not meant to be read back and keeps no secret readable.
public enum FNV1a {
    public static func hex(_ fields: String...) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in fields.map({ Array($0.utf8) }).joined(separator: [0]) {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
