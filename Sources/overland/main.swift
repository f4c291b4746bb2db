import OverlandCLI

// One executable for all three commands, chosen by the name it is run as (see
// MultiCall): the package installs it as /usr/bin/overland with overland-log and
// overland-sync as links to it. `swift run overland-log` and `swift run overland-sync`
// still build the single-command executables for development.
MultiCall.main()
