/// How fast points sent again go through a broker (`MQTTSender.republish`): at most
/// `perSecond` messages a second, whatever the broker acknowledges. A broker's PUBACK
/// says it took the message, not that its subscriber kept up: mosquitto queues at most
/// `max_queued_messages` (1,000 by default) for a subscriber and drops the rest
/// ("Outgoing messages are being dropped"), and the OwnTracks Recorder with its HTTP API
/// on takes about 20 messages a second (recorder.c's loop: one `mosquitto_loop` of one
/// packet, then `mg_poll_server` for 50 ms). Read-back's resends come in bursts of up to
/// 5,000: unpaced, most would be dropped and counted against the receiver.
public struct ResendPace: Sendable {
    /// Messages a second by default (the destination's `resend_rate`): half what the
    /// Recorder takes, leaving room for the drain of later runs and for the broker's other
    /// subscribers.
    public static let defaultPerSecond = 10

    public let perSecond: Int
    private var next: ContinuousClock.Instant?

    public init(perSecond: Int = ResendPace.defaultPerSecond) {
        self.perSecond = max(1, perSecond)
    }

    /// The interval between two messages.
    public var interval: Duration { .seconds(1) / perSecond }

    /// When the next message may go, `now` being the time it is asked; the pace then
    /// counts it as sent. A pace never banks unused time: after a pause, the next message
    /// goes at once and the one after it an interval later.
    public mutating func slot(now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        let at = max(now, next ?? now)
        next = at + interval
        return at
    }
}
