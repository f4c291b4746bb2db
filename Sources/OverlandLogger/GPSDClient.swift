#if canImport(Glibc)
import Glibc
#endif
import OverlandJSON

/// A client of gpsd's socket protocol: connects to gpsd (TCP, default localhost:2947) and
/// asks for its JSON reports with `?WATCH={"enable":true,"json":true}`. gpsd answers with
/// its VERSION, DEVICES and WATCH reports, then a TPV report per fix (and SKY and others,
/// which the decoder skips), one JSON object per line: what `gpspipe -w` prints, without
/// needing gpspipe.
public struct GPSDClient: Sendable {
    public static let defaultHost = "localhost"
    public static let defaultPort = 2947
    static let watch = Array("?WATCH={\"enable\":true,\"json\":true}\n".utf8)

    public var host: String
    public var port: Int

    /// `HOST`, `HOST:PORT`, `:PORT`, `[IPv6]`, `[IPv6]:PORT` or a bare IPv6 address; nil
    /// when the port is not 1 to 65535 or the host cannot be one (an unclosed `[`, a
    /// bracket, slash, `@`, blank or control character in it): retried forever, it would
    /// never connect.
    public init?(_ text: String?) {
        guard let text, !text.isEmpty else {
            host = Self.defaultHost
            port = Self.defaultPort
            return
        }
        var host = text
        var port = Self.defaultPort
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.hasPrefix(":") {
                guard let value = Int(rest.dropFirst()) else { return nil }
                port = value
            } else if !rest.isEmpty {
                return nil
            }
        } else if let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon {
            host = String(text[..<colon])
            guard let value = Int(text[text.index(after: colon)...]) else { return nil }
            port = value
        }
        guard (1...65535).contains(port), Self.isHost(host) else { return nil }
        self.host = host.isEmpty ? Self.defaultHost : host
        self.port = port
    }

    /// Whether `host` can name a host: printable ASCII without brackets, `/`, `@` or blanks
    /// (empty: the default).
    private static func isHost(_ host: String) -> Bool {
        host.utf8.allSatisfy { byte in
            byte > 0x20 && byte < 0x7F && ![UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "/"), UInt8(ascii: "@")].contains(byte)
        }
    }

    public var name: String { host.contains(":") ? "gpsd at [\(host)]:\(port)" : "gpsd at \(host):\(port)" }

    /// Connects and sends the WATCH command; returns the socket (non-blocking, close-on-exec)
    /// or nil with a reason (gpsd not running, name unknown).
    public func connect() -> (fd: Int32?, error: String?) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &results)
        guard status == 0, let first = results else {
            return (nil, "cannot resolve '\(host)': \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(results) }
        var lastError = ECONNREFUSED
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue),
                            address.pointee.ai_protocol)
            if fd < 0 { lastError = errno; continue }
            if Glibc.connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) != 0 {
                lastError = errno
                close(fd)
                continue
            }
            guard writeAll(fd, Self.watch) else {
                lastError = errno
                close(fd)
                continue
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            return (fd, nil)
        }
        return (nil, SystemErrorText.of(lastError))
    }

    private func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
}
