/// What is sent: every point in batches, only the newest, or the newest as OwnTracks (section 6).
public enum LoggingMode: String, SettingChoice {
    case all, latest, owntracks
}
