#!/usr/bin/env python3
"""Writes Data/CoreTypes.plist from a CoreTypes.bundle Info.plist.

usage: tools/generate-coretypes-data.py PATH/TO/coretypes.plist [OUT]

Carries the facts of every exported and imported declaration in Apple's
order: identifier, conformance, tags, reference URL, description, version.
Icons and private keys are not carried. Tag values that are not strings
are dropped and reported on standard error.
"""
import plistlib
import sys
from xml.sax.saxutils import escape

KEYS = ("UTExportedTypeDeclarations", "UTImportedTypeDeclarations")


def as_list(value):
    return [value] if isinstance(value, str) else list(value)


def facts(decl, problems):
    ident = decl["UTTypeIdentifier"]
    out = [("UTTypeIdentifier", ident)]
    if "UTTypeDescription" in decl:
        out.append(("UTTypeDescription", decl["UTTypeDescription"]))
    if "UTTypeConformsTo" in decl:
        out.append(("UTTypeConformsTo", as_list(decl["UTTypeConformsTo"])))
    tags = []
    for tag_class, values in decl.get("UTTypeTagSpecification", {}).items():
        if isinstance(values, str) or (isinstance(values, list) and all(isinstance(v, str) for v in values)):
            tags.append((tag_class, as_list(values)))
        else:
            problems.append(f"{ident}: tag class {tag_class!r} has a non-string value; dropped")
    if tags:
        out.append(("UTTypeTagSpecification", tags))
    for key in ("UTTypeReferenceURL", "UTTypeVersion"):
        if key in decl:
            out.append((key, decl[key]))
    return out


def write_value(lines, value, depth):
    pad = "\t" * depth
    if isinstance(value, str):
        lines.append(f"{pad}<string>{escape(value)}</string>")
    elif isinstance(value, list) and value and isinstance(value[0], tuple):
        lines.append(f"{pad}<dict>")
        for key, item in value:
            lines.append(f"{pad}\t<key>{escape(key)}</key>")
            write_value(lines, item, depth + 1)
        lines.append(f"{pad}</dict>")
    elif isinstance(value, list):
        lines.append(f"{pad}<array>")
        for item in value:
            write_value(lines, item, depth + 1)
        lines.append(f"{pad}</array>")
    else:
        raise TypeError(f"unexpected value {value!r}")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    with open(sys.argv[1], "rb") as f:
        source = plistlib.load(f)
    out_path = sys.argv[2] if len(sys.argv) == 3 else "Data/CoreTypes.plist"
    problems = []
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
        '<plist version="1.0">',
        "<dict>",
    ]
    for key in KEYS:
        lines.append(f"\t<key>{key}</key>")
        lines.append("\t<array>")
        for decl in source.get(key, []):
            write_value(lines, facts(decl, problems), 2)
        lines.append("\t</array>")
    lines += ["</dict>", "</plist>", ""]
    with open(out_path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    for p in problems:
        print(p, file=sys.stderr)
    counts = ", ".join(f"{len(source.get(k, []))} {k}" for k in KEYS)
    print(f"wrote {out_path}: {counts}", file=sys.stderr)


if __name__ == "__main__":
    main()
