import OverlandCLI

OverlandCommand.main()
