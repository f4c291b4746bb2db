import OverlandCLI

LogCommand.main()
