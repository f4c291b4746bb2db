import Foundation
import Testing
import TestSupport

/// Debian's chromium, headless: a page's screenshot and what its console said.
///
/// Each run has a profile of its own in a temporary directory. Chromium's own traffic is
/// kept on this machine: background networking, component updates and sync are off, and
/// every request that is not to loopback goes to a proxy on a closed port (loopback is
/// never proxied), so only the page's own requests to 127.0.0.1 can be answered.
struct HeadlessChromium {
    struct Render {
        var image: PNGImage
        /// The console's messages (`INFO:CONSOLE` lines of Chromium's log): errors,
        /// Content-Security-Policy violations, anything the page logged.
        var console: [String]
        var stderr: String
    }

    let executable: String

    init() throws { executable = try SystemTool.require("chromium") }

    /// Renders `file` in a window of `width` × `height` CSS pixels (one device pixel each)
    /// and returns the screenshot, decoded, once Chromium has exited after the page's load.
    func render(_ file: String, width: Int, height: Int) throws -> Render {
        let directory = try TemporaryDirectory(prefix: "overland-chromium")
        let screenshot = directory.appending("shot.png")
        let result = try ToolRunner(executable: executable).run([
            "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars", "--force-device-scale-factor=1",
            "--user-data-dir=\(directory.appending("profile"))", "--no-first-run", "--no-default-browser-check",
            "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-default-apps",
            "--proxy-server=127.0.0.1:\(LocalServer.closedPort())",
            "--enable-logging=stderr", "--v=0",
            "--window-size=\(width),\(height)", "--screenshot=\(screenshot)", "file://\(file)",
        ], environment: ["HOME": directory.appending("home")])
        guard result.succeeded, let bytes = FileManager.default.contents(atPath: screenshot) else {
            throw PNGImage.Failure(description: "chromium made no screenshot: \(result)")
        }
        let console = result.stderrLines.filter { $0.contains(":CONSOLE") }
        return Render(image: try PNGImage(bytes: Array(bytes)), console: console, stderr: result.stderrText)
    }
}
