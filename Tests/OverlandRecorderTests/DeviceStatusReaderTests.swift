import TestSupport
import Foundation
import OverlandProtocol
import Testing

@testable import OverlandRecorder

/// A fake `/sys/class/power_supply` and `/sys/class/net` in a private temporary directory.
final class FakeSysfs: @unchecked Sendable {
    private let directory: TemporaryDirectory
    var root: String { directory.path }
    var powerSupply: String { root + "/power_supply" }
    var net: String { root + "/net" }

    init() throws {
        directory = try TemporaryDirectory(prefix: "overland-sysfs")
        try FileManager.default.createDirectory(atPath: root + "/power_supply", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/net", withIntermediateDirectories: true)
    }

    /// A supply directory with the given attribute files (written with a newline, as the kernel does).
    @discardableResult
    func supply(_ name: String, _ attributes: [String: String]) throws -> String {
        let directory = powerSupply + "/" + name
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (attribute, value) in attributes {
            try Data((value + "\n").utf8).write(to: URL(fileURLWithPath: directory + "/" + attribute))
        }
        return directory
    }

    /// A network interface directory, wireless or not.
    func interface(_ name: String, wireless: Bool = false) throws {
        try FileManager.default.createDirectory(atPath: net + "/" + name + (wireless ? "/wireless" : ""),
                                                withIntermediateDirectories: true)
    }

    func reader(refreshSeconds: Double = 60, batteryPath: String? = nil) -> DeviceStatusReader {
        DeviceStatusReader(batteryPath: batteryPath, refreshSeconds: refreshSeconds, powerSupplyRoot: powerSupply, networkRoot: net)
    }
}

@Suite struct DeviceStatusReaderTests {
    @Test(arguments: [
        ("Charging", BatteryState.charging), ("Full", .full), ("Discharging", .unplugged),
        ("Not charging", .unplugged), ("Unknown", .unknown), ("", .unknown),
    ])
    func batteryStatus(status: String, expected: BatteryState) throws {
        let sysfs = try FakeSysfs()
        try sysfs.supply("AC", ["type": "Mains", "online": "1"])
        try sysfs.supply("BAT0", ["type": "Battery", "capacity": "80", "status": status])
        let battery = sysfs.reader().readBattery()
        #expect(battery.batteryState == expected)
        #expect(battery.batteryLevel == 0.8)
    }

    @Test func fullBattery() throws {
        let sysfs = try FakeSysfs()
        try sysfs.supply("BAT1", ["type": "Battery", "capacity": "100", "status": "Full"])
        #expect(sysfs.reader().readBattery() == DeviceSnapshot(batteryState: .full, batteryLevel: 1))
    }

    @Test(arguments: [("0", 0.0), ("7", 0.07), ("33", 0.33), ("100", 1.0), ("104", 1.0)])
    func levelIsAFractionWithTwoDecimals(capacity: String, expected: Double) throws {
        let sysfs = try FakeSysfs()
        try sysfs.supply("BAT0", ["type": "Battery", "capacity": capacity, "status": "Discharging"])
        #expect(sysfs.reader().readBattery().batteryLevel == expected)
    }

    @Test func mainsOnlyIsUnknownAndZero() throws {
        let sysfs = try FakeSysfs()
        try sysfs.supply("AC", ["type": "Mains", "online": "1"])
        try sysfs.supply("usb", ["type": "USB", "online": "1"])
        #expect(sysfs.reader().readBattery() == DeviceSnapshot(batteryState: .unknown, batteryLevel: 0))
    }

    @Test func noPowerSupplyAtAll() throws {
        let sysfs = try FakeSysfs()
        #expect(sysfs.reader().readBattery() == .none)
        let missing = DeviceStatusReader(powerSupplyRoot: sysfs.root + "/no-such-dir", networkRoot: sysfs.root + "/no-such-net")
        #expect(missing.readBattery() == .none)
    }

    @Test func batteryWithoutAReadableCapacityIsSkipped() throws {
        let sysfs = try FakeSysfs()
        try sysfs.supply("BAT0", ["type": "Battery", "status": "Charging"])
        try sysfs.supply("BAT1", ["type": "Battery", "capacity": "lots", "status": "Charging"])
        try sysfs.supply("BAT2", ["type": "Battery", "capacity": "55", "status": "Discharging"])
        #expect(sysfs.reader().readBattery() == DeviceSnapshot(batteryState: .unplugged, batteryLevel: 0.55))
    }

    /// A wireless mouse or keyboard shows up as a power supply of type Battery with scope
    /// Device (Documentation/ABI/testing/sysfs-class-power): it is not this machine's
    /// battery, and a Raspberry Pi logger with a Bluetooth mouse has no battery at all.
    @Test func peripheralBatteriesAreNotTheDevicesBattery() throws {
        let sysfs = try FakeSysfs()
        try sysfs.supply("hidpp_battery_0", ["type": "Battery", "scope": "Device", "capacity": "40", "status": "Discharging"])
        #expect(sysfs.reader().readBattery() == .none)
        try sysfs.supply("macsmc-battery", ["type": "Battery", "scope": "System", "capacity": "90", "status": "Charging"])
        #expect(sysfs.reader().readBattery() == DeviceSnapshot(batteryState: .charging, batteryLevel: 0.9))
    }

    @Test func configuredBatteryPathWins() throws {
        let sysfs = try FakeSysfs()
        try sysfs.supply("BAT0", ["type": "Battery", "capacity": "20", "status": "Discharging"])
        let chosen = try sysfs.supply("BAT1", ["type": "Battery", "capacity": "65", "status": "Charging"])
        #expect(sysfs.reader(batteryPath: chosen).readBattery() == DeviceSnapshot(batteryState: .charging, batteryLevel: 0.65))
        #expect(sysfs.reader(batteryPath: sysfs.root + "/missing").readBattery() == .none, "no fallback to another battery")
    }

    @Test func noWirelessInterfaceMeansNoWifi() throws {
        let sysfs = try FakeSysfs()
        try sysfs.interface("lo")
        try sysfs.interface("eth0")
        let wifi = sysfs.reader().readWifi()
        // With no wireless interface, only `iwgetid -r` could still name a network (on a
        // developer's laptop it may); where that tool is absent (CI), the answer is "".
        if let iwgetid = DeviceStatusReader.run("iwgetid", ["-r"]) {
            #expect(wifi == iwgetid.trimmingCharacters(in: .whitespacesAndNewlines))
        } else {
            #expect(wifi == "")
        }
    }

    @Test func snapshotIsCachedForTheRefreshPeriod() throws {
        let sysfs = try FakeSysfs()
        try sysfs.interface("eth0")
        try sysfs.supply("BAT0", ["type": "Battery", "capacity": "80", "status": "Charging"])
        let reader = sysfs.reader(refreshSeconds: 60)
        let first = reader.snapshot(now: 1000)
        #expect(first.batteryState == .charging && first.batteryLevel == 0.8)

        try sysfs.supply("BAT0", ["capacity": "79", "status": "Discharging"])
        #expect(reader.snapshot(now: 1059) == first, "read again only after the refresh period")
        let later = reader.snapshot(now: 1060)
        #expect(later.batteryState == .unplugged && later.batteryLevel == 0.79)
    }
}
