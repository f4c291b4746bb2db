#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import OverlandProtocol

/// Reads battery and Wi-Fi state from the system, at most once a minute (reading spawns
/// a process for Wi-Fi, and neither changes fast).
///
/// Battery: the first `/sys/class/power_supply/*` whose `type` is `Battery` (or the
/// directory configured), from `capacity` (percent) and `status` (Charging -> charging,
/// Full -> full, Discharging / Not charging -> unplugged, else unknown).
///
/// Wi-Fi: for each interface with a `/sys/class/net/IFACE/wireless` directory, the SSID
/// that `iw dev IFACE link` prints; else what `iwgetid -r` prints; else "". Neither tool
/// present, or no association: "".
public final class DeviceStatusReader: @unchecked Sendable {
    private let batteryPath: String?
    private let refreshSeconds: Double
    private let powerSupplyRoot: String
    private let networkRoot: String
    private var cached: DeviceSnapshot?
    private var readAt = -Double.infinity

    public init(batteryPath: String? = nil, refreshSeconds: Double = 60,
                powerSupplyRoot: String = "/sys/class/power_supply", networkRoot: String = "/sys/class/net") {
        self.batteryPath = batteryPath
        self.refreshSeconds = refreshSeconds
        self.powerSupplyRoot = powerSupplyRoot
        self.networkRoot = networkRoot
    }

    /// The current snapshot, read again when older than the refresh period.
    public func snapshot(now: Double) -> DeviceSnapshot {
        if let cached, now - readAt < refreshSeconds { return cached }
        var snapshot = readBattery()
        snapshot.wifi = readWifi()
        cached = snapshot
        readAt = now
        return snapshot
    }

    func readBattery() -> DeviceSnapshot {
        let candidates: [String]
        if let batteryPath {
            candidates = [batteryPath]
        } else {
            candidates = Self.names(in: powerSupplyRoot).sorted().map { powerSupplyRoot + "/" + $0 }
        }
        for directory in candidates {
            guard Self.text(directory + "/type") == "Battery",
                  batteryPath != nil || Self.text(directory + "/scope") != "Device", // not a wireless mouse's battery
                  let capacity = Self.text(directory + "/capacity").flatMap(Double.init), capacity >= 0 else { continue }
            let state: BatteryState
            switch Self.text(directory + "/status") {
            case "Charging": state = .charging
            case "Full": state = .full
            case "Discharging", "Not charging": state = .unplugged
            default: state = .unknown
            }
            return DeviceSnapshot(batteryState: state, batteryLevel: (min(capacity, 100) / 100 * 100).rounded() / 100)
        }
        return .none
    }

    func readWifi() -> String {
        let interfaces = Self.names(in: networkRoot).sorted()
        for interface in interfaces where access(networkRoot + "/" + interface + "/wireless", F_OK) == 0 {
            if let output = Self.run("iw", ["dev", interface, "link"]) {
                for line in output.split(separator: "\n") {
                    let trimmed = Self.trimmed(line)
                    if trimmed.hasPrefix("SSID: ") { return String(trimmed.dropFirst(6)) }
                }
            }
        }
        if let output = Self.run("iwgetid", ["-r"]) {
            let ssid = Self.trimmed(output[...])
            if !ssid.isEmpty { return String(ssid) }
        }
        return ""
    }

    /// A small sysfs attribute's text, without surrounding white space; nil if it cannot be
    /// read or is 4 KiB or more.
    static func text(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if got > 0 {
                count += got
            } else if got == 0 || errno != EINTR {
                if got < 0 { return nil }
                break
            }
        }
        guard count < bytes.count else { return nil }
        return String(Self.trimmed(String(decoding: bytes[0..<count], as: UTF8.self)[...]))
    }

    /// The entries of a directory, without `.` and `..`; none if it cannot be read.
    static func names(in directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The text without leading and trailing spaces, tabs, carriage returns and newlines.
    static func trimmed(_ text: Substring) -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = text.firstIndex(where: { !blank($0) }), let last = text.lastIndex(where: { !blank($0) }) else {
            return text[text.endIndex...]
        }
        return text[first...last]
    }

    /// Runs a tool found on PATH (or in /sbin, /usr/sbin), returning its stdout if it exits 0.
    static func run(_ tool: String, _ arguments: [String]) -> String? {
        guard let executable = ToolOutput.find(tool),
              let output = ToolOutput.run(executable, arguments, limit: 4096) else { return nil }
        return String(decoding: output, as: UTF8.self)
    }
}
