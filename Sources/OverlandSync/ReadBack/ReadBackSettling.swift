/// How long each receiver may take to show what it acknowledged (`ReadBackReader.settleSeconds`),
/// in one place. A range is read back only once that long has passed since it was
/// acknowledged (or sent again): normally by the next cron run, never by the run that sent
/// it. Chosen well past what the receiver's source says, because a point judged missing too
/// early is sent again and, twice missed, called refused.
extension HomeAssistantReader {
    /// Home Assistant's recorder commits states every `commit_interval` (5 s by default,
    /// later under load: issue 31 saw an immediate read miss 145 of 250 even at 0): six times that.
    public var settleSeconds: Int64 { 30 }
}

extension RecorderReader {
    /// The OwnTracks Recorder files a `/pub` location before it answers, but fed by a
    /// broker it stores what the broker delivers when it delivers it: 30 s.
    public var settleSeconds: Int64 { 30 }
}

extension DawarichReader {
    /// Dawarich stores an Overland batch in a background job (`Overland::BatchCreatingJob`)
    /// after it answers: its queue may lag, 30 s.
    public var settleSeconds: Int64 { 30 }
}

extension TraccarReader {
    /// Traccar answers the OsmAnd request as it decodes it; the position reaches the
    /// database further down its pipeline: 15 s.
    public var settleSeconds: Int64 { 15 }
}

extension CompassReader {
    /// Compass writes a location to its database in the request that answers it: 15 s
    /// covers a proxy or a slow disk.
    public var settleSeconds: Int64 { 15 }
}
