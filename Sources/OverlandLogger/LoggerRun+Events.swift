#if canImport(Glibc)
import Glibc
#endif
import OverlandJSON
import OverlandJournal
import OverlandInput
import OverlandRecorder
import OverlandSettings

/// What the reader and the session tell, said through `say`; reloads and signals.
extension LoggerRun {
    func wireReader() {
        let say = wiring.say, progress = wiring.progress
        reader.noFixNotice = wiring.noFixWarning
        reader.onNoFix = { [journal] input, seconds, statistics in
            let whole = CheckedInteger.rounded(seconds, in: 0...Int(Int32.max)) ?? 0
            // The state first: whoever reads the line may ask `overland status` at once.
            InputState.write(.init(input: input.name, since: Journal.currentTime() - Int64(whole), pid: getpid()), in: journal)
            say("\(input.name): no fix for \(whole) s: \(statistics.summary())")
        }
        reader.onDisconnect = { input in say("\(input.name): gone; waiting for it to come back") }
        reader.onReconnect = { input in say("\(input.name): back") }
        reader.onFixAgain = { [journal] input in
            InputState.clear(in: journal)
            say("\(input.name): fixes again")
        }
        reader.onProgress = { input, done in
            guard let size = input.size, size > 0 else { return }
            progress("\(input.name): \(done * 100 / size)%")
        }
        reader.onReload = { [unowned self] in reload() }
        reader.sleep = { [descriptor = wiring.signalDescriptor] seconds in Self.sleep(seconds, wokenBy: descriptor) }
    }

    func wireSession() {
        session.onCommitFailure = { [unowned self] error in
            // A full journal will take nothing more: stop (`checkSignals`) and say so once, at the end.
            if case .full = error {
                fullError = error
                return
            }
            wiring.say("\(error); points are kept in memory and written again at the next commit")
        }
        // A trip ends by itself when auto-pause begins, as in the app.
        session.onPause = { [unowned self] _ in
            do {
                if try AutomaticTripStop.stop(in: journal, appender: appender, settings: settings),
                   let configuration = reload() {
                    session.recorder.configuration = configuration
                }
            } catch {
                wiring.say("the trip could not be stopped automatically: \(error)")
            }
        }
    }

    /// The settings and the trip read again: the recorder's new configuration, or nil when
    /// the settings file no longer loads (the last good settings keep running).
    func reload() -> RecorderConfiguration? {
        do {
            let wasOff = TrackingChange.isOff(settings)
            settings = try wiring.loadSettings()
            if wasOff != TrackingChange.isOff(settings) {
                wiring.say(TrackingChange.notice(for: settings, settingsPath: wiring.settingsPath)
                         ?? "tracking is on again")
            }
            appender.policy.commitInterval = wiring.commitInterval ?? settings.commitInterval
            return wiring.configuration(settings, try Trip.active(in: journal))
        } catch {
            wiring.say("settings not reloaded: \(error)")
            return nil
        }
    }

    /// Stop on SIGTERM, SIGINT or a full journal; reload on SIGHUP or a change of the
    /// settings or trip file (both watchers look, whichever changed).
    public func checkSignals() -> StopRequest? {
        if fullError != nil { return .stop }
        if let request = wiring.takeSignal() { return request }
        let now = monotonicSeconds()
        let changed = [settingsWatcher.hasChanged(now: now), tripWatcher.hasChanged(now: now)]
        return changed.contains(true) ? .reload : nil
    }

    /// Sleeps `seconds`, woken early by a signal (`descriptor`, when there is one).
    static func sleep(_ seconds: Double, wokenBy descriptor: Int32) {
        guard descriptor >= 0 else {
            usleep(UInt32(seconds * 1_000_000))
            return
        }
        var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&waiting, 1, Int32((seconds * 1000).rounded(.up)))
    }
}
