#if canImport(Glibc)
import Glibc
#endif
import OverlandJournal
import OverlandJSON
import OverlandInput

/// Why an input could not be opened; the command maps ``kind`` to an exit status.
public struct InputOpenError: Error, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Not there, not readable, a directory (sysexits 66).
        case noInput
        /// A mistake on the command line: `--baud` for a file, a gpsd address that cannot work (64).
        case usage
        /// The device refused (74).
        case ioError
        /// Told to stop while waiting for the input (0).
        case stopped
    }

    public var kind: Kind
    public var message: String
    public var description: String { message }

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}

/// Opens the logger's inputs by name: `-` (standard input), a file, a serial port (raw mode,
/// the rate given or detected, reopened when plugged back in), or gpsd's socket (waited for
/// while it is not up, reconnected when it goes away).
public struct InputOpener {
    /// `--baud`, for serial ports.
    public var baud: Int?
    /// Read from gpsd's socket: the name is `HOST[:PORT]` (`-`: the default).
    public var gpsd = false
    /// A descriptor readable while a signal waits (`signalfd`), or -1.
    public var signalDescriptor: Int32 = -1
    /// Asked while waiting (gpsd not up, a rate being detected): true to give up.
    public var shouldStop: () -> Bool = { false }
    /// Waits between tries (woken by a signal in the logger).
    public var sleep: (Double) -> Void = { usleep(UInt32($0 * 1_000_000)) }
    /// A line for the user (without the tool's name).
    public var notice: (String) -> Void = { _ in }
    /// Whether the rate found on a port is worth saying (standard error is a terminal).
    public var tellsRate = false

    public init() {}

    /// The gpsd at `name` (`-`: the default), or a usage error naming what is wrong.
    public static func gpsdClient(_ name: String) throws(InputOpenError) -> GPSDClient {
        guard let client = GPSDClient(name == "-" ? nil : name) else {
            throw InputOpenError(.usage, "--gpsd '\(PrintableText.sanitised(name))': use HOST, HOST:PORT or [IPv6]:PORT "
                                 + "(a host name or address, a port from 1 to 65535)")
        }
        return client
    }

    public func open(_ name: String) throws(InputOpenError) -> LogInput {
        if gpsd { return try openGPSD(try Self.gpsdClient(name)) }
        let fd = name == "-" ? 0 : Glibc.open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw InputOpenError(.noInput, "cannot open '\(name)': \(Self.reason())") }
        var info = stat()
        fstat(fd, &info)
        let kind = info.st_mode & S_IFMT
        if kind == S_IFDIR {
            if fd != 0 { close(fd) }
            throw InputOpenError(.noInput, "cannot read '\(name)': is a directory")
        }
        if name != "-" && kind == S_IFCHR && SerialPort.isPort(fd) { return try openPort(name, fd: fd) }
        if let baud {
            if fd != 0 { close(fd) }
            throw InputOpenError(.usage, "--baud \(baud): '\(name)' is not a serial port")
        }
        return LogInput(name: name == "-" ? "standard input" : name, source: source(fd, owned: fd != 0),
                        isLive: kind != S_IFREG, size: kind == S_IFREG ? Int(info.st_size) : nil)
    }

    private func source(_ fd: Int32, owned: Bool = true) -> DescriptorSource {
        DescriptorSource(fileDescriptor: fd, signalDescriptor: signalDescriptor, owned: owned)
    }

    private static func reason() -> String { SystemErrorText.of(errno) }

    /// Connects to gpsd; waits (``shouldStop`` honoured) while gpsd is not up yet, since the
    /// logger may start before it at boot, trying ever less often (`ReconnectBackoff`). The
    /// input reconnects the same way whenever gpsd goes away.
    private func openGPSD(_ client: GPSDClient) throws(InputOpenError) -> LogInput {
        let reconnect = { () -> (any ByteSource)? in client.connect().fd.map { self.source($0) } }
        let (fd, error) = client.connect()
        if let fd { return LogInput(name: client.name, source: source(fd), isLive: true, size: nil, reopen: reconnect) }
        notice("\(client.name): \(error ?? "cannot connect"); trying again, "
               + "less often the longer it stays away (every \(Int(ReconnectBackoff.longest)) s at most)")
        var backoff = ReconnectBackoff.waiting()
        guard let opened = backoff.reopen(now: { monotonicSeconds() }, sleep: sleep, shouldStop: shouldStop, open: reconnect) else {
            throw InputOpenError(.stopped, "stopped while waiting for \(client.name)")
        }
        return LogInput(name: client.name, source: opened, isLive: true, size: nil, reopen: reconnect)
    }

    /// Opens a serial port in raw mode at ``baud``, else at the rate detected; the input
    /// reopens the port when it comes back after an unplug.
    private func openPort(_ name: String, fd: Int32) throws(InputOpenError) -> LogInput {
        let rate = try portRate(name, fd: fd)
        return LogInput(name: name, source: source(fd), isLive: true, size: nil, longestWait: ReconnectBackoff.first, reopen: {
            let reopened = Glibc.open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
            guard reopened >= 0 else { return nil }
            guard SerialPort.configure(reopened, rate: rate) else {
                close(reopened)
                return nil
            }
            return self.source(reopened)
        })
    }

    /// ``baud``, else the rate detected, else the most usual one (said).
    private func portRate(_ name: String, fd: Int32) throws(InputOpenError) -> Int {
        if let baud {
            guard SerialPort.configure(fd, rate: baud) else {
                let reason = Self.reason()
                close(fd)
                throw InputOpenError(.ioError, "cannot set '\(name)' to \(baud) baud: \(reason)")
            }
            return baud
        }
        var stopRequested = false
        if let detected = SerialPort.detectRate(fd, shouldStop: {
            if shouldStop() { stopRequested = true }
            return stopRequested
        }) {
            if tellsRate { notice("\(name): \(detected) baud") }
            return detected
        }
        if stopRequested {
            close(fd)
            throw InputOpenError(.stopped, "stopped while detecting the rate of '\(name)'")
        }
        let rate = SerialPort.usualRates[0]
        _ = SerialPort.configure(fd, rate: rate)
        notice("\(name): nothing of \(InputDecoders.titles) at \(SerialPort.usualRates.map(String.init).joined(separator: ", ")) baud; "
               + "reading at \(rate) (set the rate with --baud)")
        return rate
    }
}
