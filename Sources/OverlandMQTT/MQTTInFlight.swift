import OverlandSync

/// The messages published (or records with none) that the cursor has not passed yet,
/// oldest first.
struct MQTTInFlight {
    /// A published message (or a record with none) the cursor has not passed yet.
    struct Pending {
        /// The message id, nil for a record with nothing to publish.
        var mid: Int32?
        /// The cursor once this entry is acknowledged: set on a record's last message (a
        /// visit's transition and nothing else: one message per record today), nil before.
        var next: UInt64?
        var acknowledged: Bool
        /// When it was published (nil for a record with nothing to publish).
        var publishedAt: ContinuousClock.Instant?
    }

    var pending: [Pending] = []
    /// The oldest entry not yet passed by the cursor.
    var head = 0
    /// The first entry the cursor on disk has not passed: the window counts from there
    /// (entries published or passed over, acknowledged or not, that a crash would
    /// publish again).
    var recordedHead = 0
    var indexOfMid: [Int32: Int] = [:]
    /// The cursor once everything acknowledged so far is passed.
    var handledUpTo: UInt64

    init(handledUpTo: UInt64) { self.handledUpTo = handledUpTo }

    var isEmpty: Bool { head == pending.count }
    var waiting: Int { pending.count - head }
    var unrecorded: Int { pending.count - recordedHead }
    var oldestPublishedAt: ContinuousClock.Instant? { head < pending.count ? pending[head].publishedAt : nil }

    func isInFlight(_ mid: Int32) -> Bool { indexOfMid[mid] != nil }

    mutating func passOver(next: UInt64) {
        pending.append(Pending(mid: nil, next: next, acknowledged: true, publishedAt: nil))
    }

    mutating func published(mid: Int32, next: UInt64?) {
        indexOfMid[mid] = pending.count
        pending.append(Pending(mid: mid, next: next, acknowledged: false, publishedAt: ContinuousClock.now))
    }

    mutating func acknowledge(_ mid: Int32) {
        guard let index = indexOfMid.removeValue(forKey: mid) else { return }
        pending[index].acknowledged = true
    }

    /// Passes the acknowledged entries at the head, counting their records on `report`;
    /// forgets those the cursor on disk has passed once many have gone (a window slides
    /// and is seldom empty: the entries of a month's backlog would otherwise stay).
    mutating func advance(_ report: inout SyncReport) {
        while head < pending.count, pending[head].acknowledged {
            if let next = pending[head].next {
                if pending[head].mid != nil { report.sentRecords += 1 } else { report.notCarriedRecords += 1 }
                handledUpTo = next
            }
            head += 1
        }
        let gone = min(head, recordedHead)
        if gone > 4096, gone * 2 > pending.count {
            pending.removeFirst(gone)
            head -= gone
            recordedHead -= gone
            for (mid, index) in indexOfMid { indexOfMid[mid] = index - gone }
        }
    }
}
