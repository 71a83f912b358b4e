#!/bin/sh
# Writes `uti help COMMAND` (and `uti --help`) for every command into
# Tests/utiTests/Fixtures/help/, where HelpSnapshotTests compares them with
# the built tool: a change to help text shows in review as a change to these
# files. Run after changing a command's options, abstract or discussion.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
swift build --package-path "$root" --product uti >/dev/null
uti="$root/.build/debug/uti"
out="$root/Tests/utiTests/Fixtures/help"
rm -rf "$out"
mkdir -p "$out"
COLUMNS=80 "$uti" --help > "$out/uti.txt"
for command in $(COLUMNS=80 "$uti" --experimental-dump-help | python3 -c '
import json, sys
for c in json.load(sys.stdin)["command"]["subcommands"]:
    if c["commandName"] != "help":
        print(c["commandName"])'); do
    COLUMNS=80 "$uti" help "$command" > "$out/$command.txt"
done
ls "$out" | wc -l | sed 's/$/ help texts written/'
