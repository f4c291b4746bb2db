import OverlandCLI

// Top-level code in main.swift cannot await; an async entry point must be `@main`.
@main
enum OverlandSyncMain {
    static func main() async {
        await SyncCommand.main()
    }
}
