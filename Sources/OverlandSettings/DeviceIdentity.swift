#if canImport(Glibc)
import Glibc
#endif
import OverlandProtocol

/// The device id stamped on points and records.
public enum DeviceIdentity {
    /// The flag, else the settings (`OVERLAND_DEVICE_ID`, then the file), else the host
    /// name (some receivers drop points with a blank device id), else "overland".
    public static func resolve(flag: String?, settings: Settings) -> String {
        if let flag { return flag }
        if let configured = settings.deviceID { return configured }
        var name = [UInt8](repeating: 0, count: 256)
        gethostname(&name, name.count - 1)
        let host = String(decoding: name.prefix { $0 != 0 }, as: UTF8.self)
        return (try? DeviceID.validate(String(host.unicodeScalars.prefix(DeviceID.maximumLength)))) ?? "overland"
    }
}
