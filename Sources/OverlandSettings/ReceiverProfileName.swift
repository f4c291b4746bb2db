/// The `profile` setting: which receiver's quirks the sync applies when it sends (the
/// profiles themselves, and what each changes, are `ReceiverProfile` in OverlandProtocol).
public enum ReceiverProfileName: String, SettingChoice {
    /// The protocol as written.
    case none
    /// Whole-number speed and accuracies (Wayfinder drops a point with a fraction).
    case wayfinder
    /// The token in the url's query string (Compass reads it nowhere else).
    case compass
    /// The token as `?api_key=` (Dawarich's API key convention).
    case dawarich
    /// A complete `owntracks/USER/DEVICE` topic (Home Assistant's OwnTracks webhook).
    case homeAssistant = "home-assistant"
    /// User and device as `X-Limit-U`/`X-Limit-D` and `?u=&d=` (OwnTracks Recorder's `/pub`).
    case owntracksRecorder = "owntracks-recorder"
}
