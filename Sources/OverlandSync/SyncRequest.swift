import OverlandProtocol

/// The request the sync sends: a receiver's request (OverlandProtocol's `ReceiverRequest`),
/// under the name the sync's callers and transports have always used.
public typealias SyncRequest = ReceiverRequest
