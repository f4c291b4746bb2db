import ArgumentParser

/// `overland`: the control command.
public struct OverlandCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "overland",
        abstract: "Control an overland GPS logger.",
        version: OverlandVersion.current,
        subcommands: [StatusCommand.self, TripCommand.self, ConfigCommand.self, DestinationCommand.self, SetupCommand.self, JournalCommand.self, ExportCommand.self, MapCommand.self]
    )

    public init() {}
}

/// The version all three tools report (`--version`): the one place it is written.
public enum OverlandVersion {
    public static let current = "0.1.0"
}
