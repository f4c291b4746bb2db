/// The `profile` setting: which receiver's quirks the sync applies when it sends (the
/// profiles themselves, and what each changes, are `ReceiverProfile` in OverlandProtocol).
public enum ReceiverProfileName: String, SettingChoice {
    /// The protocol as written.
    case none
    /// Whole-number speed and accuracies (Wayfinder drops a point with a fraction).
    case wayfinder
    /// The token in the url's query string (Compass reads it nowhere else).
    case compass
}
