/// Why a device id was refused.
public enum DeviceIDError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The id is empty or only whitespace.
    case blank(String)
    /// The id, once trimmed, is longer than `DeviceID.maximumLength` Unicode scalars.
    case tooLong(String, length: Int)
    /// The id holds a control character (tab, newline, escape...).
    case controlCharacter(String)

    /// A lower-case message naming the value and what is allowed.
    public var description: String {
        let allowed = "use 1 to \(DeviceID.maximumLength) printable characters, such as \"van\" or \"alice/phone\""
        switch self {
        case .blank(let value):
            return "device id \(value.debugDescription) is blank: \(allowed)"
        case .tooLong(let value, let length):
            return "device id \(value.debugDescription) is \(length) characters long: \(allowed)"
        case .controlCharacter(let value):
            return "device id \(value.debugDescription) contains a control character: \(allowed)"
        }
    }
}
