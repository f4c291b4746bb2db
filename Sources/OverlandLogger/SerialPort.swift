#if canImport(Glibc)
import Glibc
#endif
import OverlandJournal
import OverlandInput

/// A receiver's serial port (USB or UART): raw mode at a given rate, or the rate detected
/// among the usual ones.
///
/// Raw mode: no line editing, echo, signals or CR/LF translation, 8 data bits, receiver on,
/// modem lines ignored (`CLOCAL`), reads return what has arrived. Detection sets each usual
/// rate in turn and listens for a moment: the first rate at which two sentences with good
/// checksums or two UBX frames (any input format's units) arrive is the port's. On a pseudo-terminal (tests, `socat`)
/// the rate has no effect and the first rate tried is found.
public enum SerialPort {
    /// The rates tried, most common first: 9600 (u-blox, most USB receivers), 4800 (the
    /// NMEA 0183 standard, older units), then the faster ones.
    public static let usualRates = [9600, 4800, 38400, 115200, 19200, 57600, 230400]

    /// How long each rate is listened to during detection, in seconds.
    public static let listenSeconds = 1.5

    static func speed(for rate: Int) -> speed_t? {
        switch rate {
        case 1200: return speed_t(B1200)
        case 2400: return speed_t(B2400)
        case 4800: return speed_t(B4800)
        case 9600: return speed_t(B9600)
        case 19200: return speed_t(B19200)
        case 38400: return speed_t(B38400)
        case 57600: return speed_t(B57600)
        case 115200: return speed_t(B115200)
        case 230400: return speed_t(B230400)
        case 460800: return speed_t(B460800)
        case 921600: return speed_t(B921600)
        default: return nil
        }
    }

    /// The rates `--baud` accepts.
    public static let supportedRates = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600]

    /// Whether `fd` is a terminal (a serial port or a pseudo-terminal).
    public static func isPort(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Puts the port in raw mode at `rate`; false with errno set when the port refuses.
    public static func configure(_ fd: Int32, rate: Int) -> Bool {
        guard let speed = speed(for: rate) else { return false }
        var settings = termios()
        guard tcgetattr(fd, &settings) == 0 else { return false }
        cfmakeraw(&settings)
        settings.c_cflag |= tcflag_t(CLOCAL) | tcflag_t(CREAD)
        settings.c_cflag &= ~(tcflag_t(CSTOPB) | tcflag_t(CRTSCTS))
        // Reads return at once with what has arrived (the logger polls).
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        guard cfsetispeed(&settings, speed) == 0, cfsetospeed(&settings, speed) == 0 else { return false }
        return tcsetattr(fd, TCSANOW, &settings) == 0
    }

    /// Finds the port's rate: listens at each usual rate; nil when no input format is recognised at any.
    /// `shouldStop` is asked between reads (signals).
    public static func detectRate(_ fd: Int32, shouldStop: () -> Bool) -> Int? {
        for rate in usualRates {
            guard configure(fd, rate: rate) else { continue }
            tcflush(fd, TCIFLUSH)
            if listen(fd, seconds: listenSeconds, shouldStop: shouldStop) { return rate }
            if shouldStop() { return nil }
        }
        return nil
    }

    /// Reads for up to `seconds` (of `clock`); true once an input format recognised two of
    /// its units (checksummed sentences, UBX frames: ``FormatRecogniser``).
    static func listen(_ fd: Int32, seconds: Double, clock: () -> Double = { monotonicSeconds() },
                       shouldStop: () -> Bool) -> Bool {
        var recogniser = FormatRecogniser()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = clock() + seconds
        while clock() < deadline && !shouldStop() {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, 100) <= 0 { continue }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            if count <= 0 { return false }
            recogniser.push(buffer[0..<count])
            if recogniser.recognised >= 2 { return true }
        }
        return false
    }
}
