import CZlib

/// Raw deflate (RFC 1951) in and out of memory through the system zlib; the gzip framing
/// around it is written by `Member`, because the journal puts its own header fields there.
enum Deflate {
    /// Compresses `input` whole into a raw deflate stream.
    static func compress(_ input: UnsafeRawBufferPointer, level: Int32) -> [UInt8] {
        var stream = z_stream()
        // windowBits -15: raw deflate, 32 KiB window; memLevel 8 is zlib's default.
        let status = deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY,
                                   ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "zlib deflateInit2 failed: \(status)")
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(input.count)))
        var output = [UInt8](repeating: 0, count: bound)
        let produced = output.withUnsafeMutableBytes { out -> Int in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(input.count)
            stream.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(out.count)
            let result = deflate(&stream, Z_FINISH)
            precondition(result == Z_STREAM_END, "zlib deflate did not finish: \(result)")
            return out.count - Int(stream.avail_out)
        }
        output.removeSubrange(produced...)
        return output
    }

    enum InflateFailure: Error {
        case corrupt(String)
        case tooLarge
        case truncated
    }

    /// Inflates one raw deflate stream that must end exactly at the end of `input`, into at
    /// most `limit` bytes (a gzip bomb stops there).
    static func inflate(_ input: UnsafeRawBufferPointer, expectedSize: Int, limit: Int) throws(InflateFailure) -> [UInt8] {
        var output: [UInt8] = []
        try inflate(input, expectedSize: expectedSize, limit: limit, into: &output)
        return output
    }

    /// `inflate(_:expectedSize:limit:)` into `output`, replacing its contents and reusing its
    /// storage when nothing else holds it. After a failure `output` holds no useful bytes.
    static func inflate(_ input: UnsafeRawBufferPointer, expectedSize: Int, limit: Int, into output: inout [UInt8]) throws(InflateFailure) {
        guard expectedSize <= limit else { throw .tooLarge }
        var stream = z_stream()
        let status = inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "zlib inflateInit2 failed: \(status)")
        defer { inflateEnd(&stream) }
        // One byte of room beyond the promised size shows a stream that inflates to more.
        // The room's old bytes need no zeroing (only what zlib writes is kept); growing it
        // with a whole array, not an element at a time (a debug build took minutes for
        // 200 MiB of members that way).
        let room = expectedSize + 1
        if output.count > room {
            output.removeSubrange(room...)
        } else if output.count < room {
            output += [UInt8](repeating: 0, count: room - output.count)
        }
        let outcome: Result<Int, InflateFailure> = output.withUnsafeMutableBytes { out in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(input.count)
            stream.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(out.count)
            let result = CZlib.inflate(&stream, Z_FINISH)
            let produced = out.count - Int(stream.avail_out)
            switch result {
            case Z_STREAM_END:
                if stream.avail_in != 0 { return .failure(.corrupt("data after the end of the deflate stream")) }
                if produced != expectedSize { return .failure(.corrupt("inflates to \(produced) bytes, not \(expectedSize)")) }
                return .success(produced)
            case Z_BUF_ERROR:
                return .failure(produced > expectedSize ? .corrupt("inflates to more than \(expectedSize) bytes") : .truncated)
            case Z_DATA_ERROR:
                let message = stream.msg.map { String(cString: $0) } ?? "invalid deflate data"
                return .failure(.corrupt(message))
            default:
                return .failure(.corrupt("zlib error \(result)"))
            }
        }
        let produced = try outcome.get()
        output.removeSubrange(produced...)
    }

    static func crc32(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return seed }
        return UInt32(CZlib.crc32(uLong(seed), base.assumingMemoryBound(to: Bytef.self), uInt(bytes.count)))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { crc32($0) }
    }
}
