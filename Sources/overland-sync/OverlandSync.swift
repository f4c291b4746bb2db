import ArgumentParser
import OverlandCLI

@main
enum OverlandSyncMain: AsyncMainProtocol {
    typealias Command = SyncCommand
}
