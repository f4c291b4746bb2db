import OverlandJSON
import OverlandJournal
import OverlandSettings

extension Destination {
    /// Which receiver this is, as the sync's state records it (`SyncConfiguration.receiverFingerprint`).
    public var receiverFingerprint: String { SyncConfiguration(endpoint: url, token: token).receiverFingerprint }

    /// The receiver, account and device this destination sends to, as a move carries the
    /// places of the records it acknowledged (`CarriedPlace.receiver`, journal-format.md
    /// section 12): its url, token, protocol, device id and topic. Another machine whose
    /// destination sends there the same way (whatever its name) names it alike, and skips
    /// what it had.
    public var carriedReceiver: String {
        FNV1a.hex(url, token ?? "", wireProtocol.rawValue, deviceID ?? "", topic ?? "")
    }
}

extension Array where Element == Destination {
    /// Each destination's cursor and how it names its receiver (`carriedReceiver`).
    public var carriedReceivers: [CursorName: String] {
        var receivers: [CursorName: String] = [:]
        for destination in self { if let name = CursorName(destination.name) { receivers[name] = destination.carriedReceiver } }
        return receivers
    }
}
