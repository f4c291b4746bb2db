#if canImport(Glibc)
import Glibc
#endif
import Foundation
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
            let names = (try? FileManager.default.contentsOfDirectory(atPath: powerSupplyRoot)) ?? []
            candidates = names.sorted().map { powerSupplyRoot + "/" + $0 }
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
        let interfaces = ((try? FileManager.default.contentsOfDirectory(atPath: networkRoot)) ?? []).sorted()
        for interface in interfaces where FileManager.default.fileExists(atPath: networkRoot + "/" + interface + "/wireless") {
            if let output = Self.run("iw", ["dev", interface, "link"]) {
                for line in output.split(separator: "\n") {
                    let trimmed = line.trimmingCharacters(in: .whitespaces)
                    if trimmed.hasPrefix("SSID: ") { return String(trimmed.dropFirst(6)) }
                }
            }
        }
        if let output = Self.run("iwgetid", ["-r"]) {
            let ssid = output.trimmingCharacters(in: .whitespacesAndNewlines)
            if !ssid.isEmpty { return ssid }
        }
        return ""
    }

    static func text(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path), data.count < 4096 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs a tool found on PATH (or in /sbin, /usr/sbin), returning its stdout if it exits 0.
    static func run(_ tool: String, _ arguments: [String]) -> String? {
        let searchPath = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin") + ":/usr/sbin:/sbin"
        guard let executable = searchPath.split(separator: ":").map({ "\($0)/\(tool)" })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data.prefix(4096), as: UTF8.self)
    }
}
