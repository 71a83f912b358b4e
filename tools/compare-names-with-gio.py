#!/usr/bin/env python3
"""Compares the MIME type `uti` gives a file name (no file is read) with
GIO's g_content_type_guess(name, NULL, 0) for every simple glob of the
system shared-mime-info database and for edge-case names.

Usage: tools/compare-names-with-gio.py [--uti PATH]
Prints the agreement rate, every disagreement, and how often GIO was
uncertain. Exit 0 when every name agrees, 1 otherwise.
"""
import argparse, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EDGE_NAMES = [
    "a.tar.gz", "x.C", "x.c", "core", "Core", "README", "README.md", "readme",
    "libfoo.so.1", "libfoo.so.1.2", "x~", "notes.txt~", "Makefile", "makefile",
    "GNUmakefile", "x.TXT", "photo.JPG", "archive.TAR.GZ", ".profile", "a.b.c.d",
    "CMakeLists.txt", "ChangeLog", "x.desktop", "x.ts", "x.m", "x.h", "x.pdf.gz",
    "noextension", "trailing.", "x.7z.001", "x.po", "x.pot", "INSTALL", "COPYING",
]

def simple_globs():
    """`*.ext` globs and literal names from the system globs2 file."""
    names = []
    path = "/usr/share/mime/globs2"
    for line in open(path, encoding="utf-8"):
        if line.startswith("#"):
            continue
        parts = line.rstrip("\n").split(":")
        if len(parts) < 3 or parts[2] == "__NOGLOBS__":
            continue
        pattern = parts[2]
        if re.fullmatch(r"\*\.[^*?\[\]]+", pattern):
            names.append("file" + pattern[1:])
        elif not re.search(r"[*?\[\]]", pattern):
            names.append(pattern)
    return sorted(set(names))

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--uti", default=os.path.join(ROOT, ".build/release/uti"))
    args = parser.parse_args()
    gio = subprocess.run([os.path.join(ROOT, "tools/gio/build.sh")], check=True,
                         capture_output=True, text=True).stdout.strip()
    names = simple_globs() + EDGE_NAMES
    text = "\n".join(names) + "\n"
    reference = subprocess.run([gio, "names"], input=text, capture_output=True, text=True, check=True).stdout
    ours = subprocess.run([args.uti, "batch", "--file", "--json"], input=text, capture_output=True, text=True).stdout
    import json
    disagreements, uncertain = [], 0
    gio_rows = [line.split("\t", 2) for line in reference.splitlines()]
    our_rows = [json.loads(line) for line in ours.splitlines()]
    if len(our_rows) != len(names):
        print(f"uti answered {len(our_rows)} of {len(names)} names", file=sys.stderr)
        return 2
    explained = []
    for name, (gio_type, certainty, _), row in zip(names, gio_rows, our_rows):
        if certainty == "uncertain":
            uncertain += 1
        if row.get("mimeType") == gio_type:
            continue
        # A name that gives no type: uti answers nothing, GIO plain data.
        if "error" in row:
            if gio_type == "application/octet-stream":
                continue
            disagreements.append((name, gio_type, certainty, None, row["error"]))
            continue
        candidates = row.get("nameCandidates") or []
        # Where GIO is uncertain between globs, uti takes the candidate its
        # own answer for the extension claims (also uncertain).
        if certainty == "uncertain" and not row.get("certain") and gio_type in candidates and row.get("mimeType") in candidates:
            explained.append((name, gio_type, row.get("mimeType"), row["type"]["identifier"]))
            continue
        disagreements.append((name, gio_type, certainty, row.get("mimeType"), row["type"]["identifier"]))
    agree = len(names) - len(disagreements) - len(explained)
    print(f"names compared: {len(names)} ({len(names) - len(EDGE_NAMES)} from globs2, {len(EDGE_NAMES)} edge cases)")
    print(f"agreement: {agree}/{len(names)} = {100.0 * agree / len(names):.2f}%")
    print(f"GIO uncertain: {uncertain}; of those, uti picked another of the same candidates by the extension's type: {len(explained)}")
    for name, g, m, ident in explained:
        print(f"  explained {name}: gio {g}, uti {m} ({ident})")
    print(f"disagreements: {len(disagreements)}")
    for name, g, c, m, ident in disagreements:
        print(f"  {name}: gio {g} ({c}), uti {m} ({ident})")
    return 0 if not disagreements else 1

if __name__ == "__main__":
    sys.exit(main())
