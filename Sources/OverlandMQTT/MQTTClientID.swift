import OverlandJSON

/// The client identifier a destination connects with: stable (the same device and
/// destination always give the same one, so a broker can tell a reconnection from a new
/// device) and within what every broker must accept (MQTT 3.1.1 section 3.1.3.1: 1 to 23
/// characters of 0-9, a-z, A-Z).
///
/// `ov` + up to 8 letters and digits of the device id (readable in a broker's log) + 13 hex
/// digits of a 64-bit FNV-1a hash of the device id and destination name: two destinations
/// of one device on the same broker (a cron run and a `--watch` run) never take each
/// other's session.
public enum MQTTClientID {
    public static func derive(deviceID: String, destination: String) -> String {
        let readable = String(deviceID.unicodeScalars.filter { $0.isASCII && (("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)) }
            .prefix(8).map(Character.init))
        return "ov" + readable + FNV1a.hex(deviceID, destination).prefix(13)
    }
}
