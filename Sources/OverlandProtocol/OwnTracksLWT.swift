import OverlandJSON

/// The last will an OwnTracks device leaves with the broker (booklet, "JSON", `_type=lwt`):
/// published by the broker on the device topic when the connection is lost without a
/// clean disconnect, so that subscribers (Home Assistant, the Recorder) see the device go.
public enum OwnTracksLWT {
    /// `{"_type":"lwt","tst":TST}`, where `tst` is when the device connected, Unix seconds.
    public static func payload(tst: Int64) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 40)
        writer.appendRaw(#"{"_type":"lwt","tst":"#)
        writer.appendInteger(tst)
        writer.appendRaw("}")
        return writer.bytes
    }
}
