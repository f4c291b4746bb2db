import OverlandJournal
import OverlandSettings

extension Invariants {
    /// The settings and destination changes (`Simulation+Configuration`): after any cut the
    /// settings file and `destinations.json` each hold the content before a change or after
    /// it, whole: never torn, never gone once a change returned (a destination added is
    /// there with its keys or absent; one removed is gone or intact, and every other stays
    /// as it was); every destination configured has its cursor (`add` places it first);
    /// `tracking.json`, when there, reads. `live`: the running process's view after a fault
    /// (what it sees is kept as what may be there, not as what is).
    static func configuration(_ disk: any FileSystem, _ journal: Journal, model: inout Simulation.Model, live: Bool) -> Finding? {
        let settingsPath = Simulation.settingsPath
        let settings: Settings?
        let destinations: [Destination]?
        do {
            settings = disk.kind(settingsPath) == .missing ? nil : try SettingsFile.load(path: settingsPath, fileSystem: disk)
        } catch {
            return Finding(kind: "settings", message: "the settings file does not read: \(error)")
        }
        if let problem = settingsChange(settings, model.settingsFile) { return problem }
        if let settings, disk.kind(TrackingChange.path(settingsPath: settingsPath)) != .missing {
            var other = settings
            other.trackingEnabled.toggle()
            if TrackingChange.load(settingsPath: settingsPath, matching: settings, fileSystem: disk) == nil,
               TrackingChange.load(settingsPath: settingsPath, matching: other, fileSystem: disk) == nil {
                return Finding(kind: "settings", message: "tracking.json does not read")
            }
        }
        let path = Simulation.destinationsPath
        do {
            destinations = disk.kind(path) == .missing ? nil : try DestinationsFile.load(path: path, fileSystem: disk)
        } catch {
            return Finding(kind: "destinations", message: "destinations.json does not read: \(error)")
        }
        if let problem = destinationsChange(destinations, model.destinationsFile) { return problem }
        do {
            let cursors = try journal.cursorNames()
            if let missing = (destinations ?? []).first(where: { !cursors.contains(CursorName($0.name)!) }) {
                return Finding(kind: "destinations", message: "destination '\(missing.name)' is configured and has no cursor")
            }
        } catch {
            return Finding(kind: "recovery", message: "the cursors' names: \(error)")
        }
        if !live {
            model.settingsFile.observed(settings)
            model.destinationsFile.observed(destinations)
        }
        return nil
    }

    static func settingsChange(_ settings: Settings?, _ file: ConfigurationFile<Settings>) -> Finding? {
        let allowed = file.allowed + (file.inFlight.map { [$0] } ?? [])
        guard !allowed.contains(settings) else { return nil }
        guard let settings else { return Finding(kind: "settings", message: "the settings file is gone, though a change to it had returned") }
        return Finding(kind: "settings", message: "the settings file holds neither the settings before the change nor after it "
                       + "(device id \(settings.deviceID ?? "none"), allowed \(allowed.map { $0?.deviceID ?? "no file" }))")
    }

    static func destinationsChange(_ destinations: [Destination]?, _ file: ConfigurationFile<[Destination]>) -> Finding? {
        let allowed = file.allowed + (file.inFlight.map { [$0] } ?? [])
        guard !allowed.contains(destinations) else { return nil }
        guard let destinations else { return Finding(kind: "destinations", message: "destinations.json is gone, though a change to it had returned") }
        let known = allowed.flatMap { $0 ?? [] }
        if let changed = destinations.first(where: { destination in !known.contains(destination) }) {
            return Finding(kind: "destinations", message: "destination '\(changed.name)' is in destinations.json with keys no change wrote")
        }
        let names = destinations.map(\.name)
        return Finding(kind: "destinations", message: "destinations.json names \(names), neither the destinations before the change nor after it "
                       + "(allowed \(allowed.map { $0.map { $0.map(\.name) } ?? ["no file"] }))")
    }
}
