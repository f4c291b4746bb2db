/// The receivers, one per wire protocol: the one table a new protocol is added to.
public enum Receivers {
    /// How each protocol's receiver is made. `mqtt` publishes through a broker, not over
    /// HTTP: its sender registers here when it is built.
    public static let table: [WireProtocol: @Sendable (ReceiverOptions) -> any Receiver] = [
        .overland: { OverlandReceiver(options: $0) },
        .owntracks: { OwnTracksReceiver(options: $0) },
        .traccar: { TraccarReceiver(options: $0) },
    ]

    /// The receiver for `wireProtocol` with `options`, or nil when this build has none.
    public static func receiver(for wireProtocol: WireProtocol, options: ReceiverOptions) -> (any Receiver)? {
        table[wireProtocol].map { $0(options) }
    }
}
