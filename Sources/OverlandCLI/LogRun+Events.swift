#if canImport(Glibc)
import Glibc
#endif
import OverlandJSON
import OverlandJournal
import OverlandLogger
import OverlandRecorder
import OverlandSettings

/// What the reader and the session tell, said on standard error; reloads and signals.
extension LogRun {
    func wireReader() {
        reader.noFixNotice = command.noFixWarning
        reader.onNoFix = { [journal] input, seconds, statistics in
            let whole = CheckedInteger.rounded(seconds, in: 0...Int(Int32.max)) ?? 0
            // The state first: whoever reads the line may ask `overland status` at once.
            InputState.write(.init(input: input.name, since: Journal.currentTime() - Int64(whole), pid: getpid()), in: journal)
            Self.say("\(input.name): no fix for \(whole) s: \(statistics.summary())")
        }
        reader.onDisconnect = { input in Self.say("\(input.name): gone; waiting for it to come back") }
        reader.onReconnect = { input in Self.say("\(input.name): back") }
        reader.onFixAgain = { [journal] input in
            InputState.clear(in: journal)
            Self.say("\(input.name): fixes again")
        }
        reader.onProgress = { input, done in
            guard let size = input.size, size > 0 else { return }
            Terminal.progress("\(input.name): \(done * 100 / size)%")
        }
        reader.onReload = { [unowned self] in reload() }
        reader.sleep = { [signalDescriptor] seconds in Self.sleep(seconds, wokenBy: signalDescriptor) }
    }

    func wireSession() {
        session.onCommitFailure = { [unowned self] error in
            // A full journal will take nothing more: stop (`checkSignals`) and say so once, at the end.
            if case .full = error {
                fullError = error
                return
            }
            Self.say("\(error); points are kept in memory and written again at the next commit")
        }
        // A trip ends by itself when auto-pause begins, as in the app.
        session.onPause = { [unowned self] _ in
            do {
                if try AutomaticTripStop.stop(in: journal, appender: appender, settings: settings),
                   let configuration = reload() {
                    session.recorder.configuration = configuration
                }
            } catch {
                Self.say("the trip could not be stopped automatically: \(error)")
            }
        }
    }

    /// The settings and the trip read again: the recorder's new configuration, or nil when
    /// the settings file no longer loads (the last good settings keep running).
    func reload() -> RecorderConfiguration? {
        do {
            let wasOff = TrackingChange.isOff(settings)
            settings = try command.journalOptions.settings()
            if wasOff != TrackingChange.isOff(settings) {
                Self.say(TrackingChange.notice(for: settings, settingsPath: command.journalOptions.settingsOptions.path)
                         ?? "tracking is on again")
            }
            appender.policy.commitInterval = command.commitInterval ?? settings.commitInterval
            return command.recorderConfiguration(settings, trip: try Trip.active(in: journal))
        } catch {
            Self.say("settings not reloaded: \(error)")
            return nil
        }
    }

    /// Stop on SIGTERM, SIGINT or a full journal; reload on SIGHUP or a change of the
    /// settings or trip file (both watchers look, whichever changed).
    func checkSignals() -> StopRequest? {
        if fullError != nil { return .stop }
        if let request = Signals.take() { return request }
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
