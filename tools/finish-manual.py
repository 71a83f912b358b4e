#!/usr/bin/env python3
"""Finishes the manual page swift-argument-parser's generate-manual plugin
writes: blank lines become paragraph breaks (mdoc warns about empty input
lines), and EXIT STATUS, ENVIRONMENT and FILES are made from the tables of
the same names in docs/reference.md, so the page and the documentation say
the same.

Usage: tools/finish-manual.py GENERATED.1 > docs/uti.1
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def table(reference, heading):
    """The rows (lists of cells) of the first table under `## heading`."""
    lines = reference[reference.index(f"\n## {heading}\n") + 1:].split("\n")
    rows = []
    for line in lines[1:]:
        if line.startswith("#"):
            break
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
        elif rows:
            break
    return rows[2:]


def text(markdown):
    """A table cell as mdoc text: code spans plain, escapes for roff."""
    plain = re.sub(r"`([^`]*)`", r"\1", markdown).replace("\\|", "|")
    plain = plain.replace("\\", "\\e").replace("…", "...")
    return plain if not plain.startswith((".", "'")) else "\\&" + plain


def section(name, rows, tag):
    out = [f'.Sh "{name}"' if " " in name else f".Sh {name}", ".Bl -tag -width Ds"]
    for first, second in rows:
        out += [f".It {tag} {text(first)}", text(second)]
    out.append(".El")
    return out


def main():
    generated = open(sys.argv[1], encoding="utf-8").read().split("\n")
    reference = open(os.path.join(ROOT, "docs", "reference.md"), encoding="utf-8").read()
    out = []
    skip_exit = False
    for line in generated:
        if line == '.Sh "EXIT STATUS"':
            out += section("EXIT STATUS", table(reference, "Exit status"), "Sy")
            skip_exit = True
            continue
        if skip_exit:
            if line.startswith(".Sh"):
                skip_exit = False
            else:
                continue
        if line == ".Sh AUTHORS":
            out += section("ENVIRONMENT", table(reference, "Environment"), "Ev")
            out += section("FILES", table(reference, "Files"), "Pa")
        if line.strip() == "":
            if out and out[-1] != ".Pp" and not out[-1].startswith((".Sh", ".Bl", ".It")):
                out.append(".Pp")
            continue
        out.append(line)
    sys.stdout.write("\n".join(out).rstrip("\n") + "\n")


if __name__ == "__main__":
    main()
