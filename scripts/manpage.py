#!/usr/bin/env python3
"""Writes a man(7) page for one of overland's commands from swift-argument-parser's
description of it (`COMMAND --experimental-dump-help`), so the pages say exactly what
`--help` says, subcommands included:

    overland --experimental-dump-help | python3 scripts/manpage.py --date 2026-11-24 > overland.1
"""
import argparse
import json
import sys

COMMON = {
    "ENVIRONMENT": [
        ("OVERLAND_URL", "The endpoint."),
        ("OVERLAND_TOKEN", "The access token."),
        ("OVERLAND_DEVICE_ID", "The device id stamped on every point (default: the host name)."),
        ("OVERLAND_JOURNAL", "The journal directory."),
        ("OVERLAND_CONFIG", "The settings file."),
        ("XDG_DATA_HOME, XDG_CONFIG_HOME", "Base directories, per the XDG specification."),
    ],
    "EXIT STATUS": [
        ("0", "Success."),
        ("64", "Usage error."),
        ("65", "Bad data (damage found)."),
        ("66", "An input cannot be opened."),
        ("74", "I/O error (the journal cannot be written)."),
        ("75", "Try later (network, time-out, 5xx, not acknowledged)."),
        ("77", "Permission denied (and a server's 401 or 403)."),
        ("78", "Configuration error."),
    ],
}
FILES = [
    ("$XDG_DATA_HOME/overland/journal", "The journal (else ~/.local/share/overland/journal)."),
    ("$XDG_CONFIG_HOME/overland/settings.json", "The settings (else ~/.config/overland/settings.json)."),
    ("/var/lib/overland", "The journal and settings of the packaged systemd units, owned by the overland user."),
    ("/etc/default/overland", "The packaged sync's environment (OVERLAND_URL, OVERLAND_TOKEN), 0600."),
    ("/etc/default/overland-log", "The packaged loggers' environment (OVERLAND_DEVICE_ID, OVERLAND_SERIAL_SPEED)."),
]
ALL_COMMANDS = ["overland", "overland-log", "overland-sync"]


def text(value: str) -> str:
    """Escapes text for roff: backslashes, and a control character at a line's start."""
    value = value.replace("\\", "\\e")
    lines = []
    for line in value.split("\n"):
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def dashes(value: str) -> str:
    return text(value).replace("-", "\\-")


def name_of(name: dict) -> str:
    return ("--" if name["kind"] == "long" else "-") + name["name"]


def visible(arguments):
    return [a for a in arguments or [] if a.get("shouldDisplay", True)
            and a.get("valueName") not in ("help", "version")]


def synopsis_part(argument: dict) -> str:
    if argument["kind"] == "positional":
        part = "\\fI" + dashes(argument.get("valueName", "value")) + "\\fR"
        if argument.get("isRepeating"):
            part += " ..."
    else:
        part = "\\fB" + dashes(name_of(argument["preferredName"])) + "\\fR"
        if argument["kind"] == "option":
            part += " \\fI" + dashes(argument.get("valueName", "value")) + "\\fR"
    return "[" + part + "]" if argument.get("isOptional") else part


def option_heading(argument: dict) -> str:
    if argument["kind"] == "positional":
        return "\\fI" + dashes(argument.get("valueName", "value")) + "\\fR" + (" ..." if argument.get("isRepeating") else "")
    names = ", ".join("\\fB" + dashes(name_of(n)) + "\\fR" for n in argument.get("names", []))
    if argument["kind"] == "option":
        names += " \\fI" + dashes(argument.get("valueName", "value")) + "\\fR"
    return names


def options(out, arguments) -> None:
    for argument in arguments:
        out.append(".TP")
        out.append(option_heading(argument))
        body = argument.get("abstract", "")
        if argument.get("discussion"):
            body += " " + argument["discussion"]
        if argument.get("allValues") and argument["kind"] != "flag":
            body += " Values: " + ", ".join(argument["allValues"]) + "."
        if argument.get("defaultValue") not in (None, ""):
            body += " Default: " + str(argument["defaultValue"]) + "."
        out.append(text(body.strip()))


def discussion(out, value: str) -> None:
    """Paragraphs separated by blank lines; indented lines (examples) kept as they are."""
    for block in value.strip().split("\n\n"):
        lines = block.split("\n")
        if any(line.startswith("  ") for line in lines):
            out.append(".PP")
            out.append(".nf")
            out.extend(text(line) for line in lines)
            out.append(".fi")
        else:
            out.append(".PP")
            out.append(text(" ".join(line.strip() for line in lines)))


def shown_subcommands(command: dict):
    return [sub for sub in command.get("subcommands") or []
            if sub.get("shouldDisplay", True) and sub["commandName"] != "help"]


def subcommands(out, command: dict, path: str) -> None:
    for sub in shown_subcommands(command):
        full = path + " " + sub["commandName"]
        out.append(".SS " + dashes(full))
        args = visible(sub.get("arguments"))
        out.append("\\fB" + dashes(full) + "\\fR " + " ".join(synopsis_part(a) for a in args))
        if sub.get("abstract"):
            out.append(".PP")
            out.append(text(sub["abstract"]))
        if sub.get("discussion"):
            discussion(out, sub["discussion"])
        if args:
            options(out, args)
        subcommands(out, sub, full)


def page(dump: dict, date: str, version: str) -> str:
    command = dump["command"]
    name = command["commandName"]
    out = ['.\\" Generated by scripts/manpage.py from `' + name + ' --experimental-dump-help`.',
           '.TH "' + name.upper() + '" 1 "' + date + '" "overland ' + version + '" "User Commands"',
           ".SH NAME", dashes(name) + " \\- " + text(command.get("abstract", "")),
           ".SH SYNOPSIS"]
    args = visible(command.get("arguments"))
    if shown_subcommands(command):
        out.append("\\fB" + dashes(name) + "\\fR \\fIcommand\\fR [\\fIoptions\\fR]")
    else:
        out.append("\\fB" + dashes(name) + "\\fR " + " ".join(synopsis_part(a) for a in args))
    out.append(".SH DESCRIPTION")
    out.append(text(command.get("abstract", "")))
    if command.get("discussion"):
        discussion(out, command["discussion"])
    out.append(".SH OPTIONS")
    options(out, args)
    out.append(".TP")
    out.append("\\fB\\-\\-version\\fR")
    out.append("Show the version.")
    out.append(".TP")
    out.append("\\fB\\-h\\fR, \\fB\\-\\-help\\fR")
    out.append("Show help information.")
    if shown_subcommands(command):
        out.append(".SH COMMANDS")
        subcommands(out, command, name)
    for section, rows in COMMON.items():
        out.append(".SH " + section)
        for key, value in rows:
            out.append(".TP")
            out.append("\\fB" + dashes(key) + "\\fR")
            out.append(text(value))
    out.append(".SH FILES")
    for key, value in FILES:
        out.append(".TP")
        out.append("\\fI" + dashes(key) + "\\fR")
        out.append(text(value))
    out.append(".SH SEE ALSO")
    out.append(", ".join("\\fB" + dashes(other) + "\\fR(1)" for other in ALL_COMMANDS if other != name)
               + ", \\fBsystemctl\\fR(1), \\fBjournalctl\\fR(1), \\fBgpspipe\\fR(1)")
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--date", required=True, help="the page's date, yyyy-mm-dd")
    parser.add_argument("--version", required=True, help="the package's version")
    args = parser.parse_args()
    dump = json.load(sys.stdin)
    sys.stdout.write(page(dump, args.date, args.version))


if __name__ == "__main__":
    main()
