#!/usr/bin/env python3
"""Compiles Data/*.plist into Sources/UniformTypes/Generated/BundledDeclarationData.swift.

Data/Descriptions.plist is not a declaration file: it gives the description
of each bundled type whose declaration has none (identifier -> dict with
UTTypeDescription and source). Generation fails when a bundled type is left
without a description, or when an entry names a type that has its own or that
no bundled file declares.

Every declaration of every file is kept, in order (Data/CoreTypes.plist
first): an exported declaration in Data/Additions.plist with the identifier
of a macOS 12 type is how a later macOS's change to that type is written,
and the registry lets it replace the earlier one where that one stands.

usage: tools/generate-bundled-declarations.py [--check]

The output is one Swift string literal, one line per declaration, so that
looking up a bundled type parses no XML at run time and the file compiles in
seconds. Each line: kind (E/I), file index, line, identifier, parents, tags,
description, reference URL, version, separated by tabs; lists use U+001F
between items, U+001E between a tag class and its tags, U+001D between tag
classes. --check exits 1 when the committed file is out of date.
"""
import glob
import os
import sys
import xml.parsers.expat

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Sources/UniformTypes/Generated/BundledDeclarationData.swift")
FORBIDDEN = {"\t", "\n", "\r", "\x1d", "\x1e", "\x1f"}


def parse(path):
    """A property list as nested (kind, value, line) tuples."""
    stack, root = [], []
    text = []
    parser = xml.parsers.expat.ParserCreate()

    def start(name, attrs):
        text.clear()
        node = [name, [], parser.CurrentLineNumber]
        (stack[-1][1] if stack else root).append(node)
        stack.append(node)

    def end(name):
        node = stack.pop()
        if name in ("string", "key", "integer", "real"):
            node[1] = "".join(text)
        text.clear()

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text.append
    with open(path, "rb") as f:
        parser.ParseFile(f)
    return root[0]


def to_value(node):
    name, content, line = node
    if name == "dict":
        return {content[i][1]: to_value(content[i + 1])[0] for i in range(0, len(content), 2)}, line
    if name == "array":
        return [to_value(c)[0] for c in content], line
    return content, line


def strings(value):
    return [value] if isinstance(value, str) else list(value)


def field(value):
    bad = FORBIDDEN.intersection(value)
    if bad:
        sys.exit(f"value {value!r} holds a separator character")
    return value.replace("\\", "\\\\").replace('"', '\\"')


def descriptions(path):
    """Data/Descriptions.plist as identifier -> description."""
    top = parse(path)[1][0]
    table, _ = to_value(top)
    result = {}
    for identifier, entry in table.items():
        if not entry.get("UTTypeDescription") or not entry.get("source"):
            sys.exit(f"{path}: {identifier} needs UTTypeDescription and source")
        result[identifier] = entry["UTTypeDescription"]
    return result


def records(files, extra_descriptions):
    out = []
    unused = dict(extra_descriptions)
    missing = []
    for index, path in enumerate(files):
        top = parse(path)[1][0]
        assert top[0] == "dict", path
        entries = top[1]
        for i in range(0, len(entries), 2):
            key = entries[i][1]
            if key not in ("UTExportedTypeDeclarations", "UTImportedTypeDeclarations"):
                continue
            kind = "E" if key.startswith("UTExported") else "I"
            for decl_node in entries[i + 1][1]:
                decl, line = to_value(decl_node)
                identifier = decl["UTTypeIdentifier"]
                description = decl.get("UTTypeDescription", "")
                if identifier in unused:
                    if description:
                        sys.exit(f"Data/Descriptions.plist: {identifier} has its own description in {path}")
                    description = unused.pop(identifier)
                if not description:
                    missing.append(identifier)
                tags = "\\u{1D}".join(
                    field(cls) + "\\u{1E}" + "\\u{1F}".join(field(t) for t in strings(v))
                    for cls, v in decl.get("UTTypeTagSpecification", {}).items())
                parts = [kind, str(index), str(line), field(decl["UTTypeIdentifier"]),
                         "\\u{1F}".join(field(p) for p in strings(decl.get("UTTypeConformsTo", []))),
                         tags,
                         field(description),
                         field(decl.get("UTTypeReferenceURL", "")),
                         field(decl.get("UTTypeVersion", ""))]
                out.append("\\t".join(parts))
    return out


def render():
    extra = os.path.join(ROOT, "Data", "Descriptions.plist")
    files = sorted(p for p in glob.glob(os.path.join(ROOT, "Data", "*.plist")) if p != extra)
    # CoreTypes first: declaration order decides ties between claimants.
    files.sort(key=lambda p: (os.path.basename(p) != "CoreTypes.plist", p))
    names = [os.path.relpath(p, ROOT) for p in files]
    lines = records(files, descriptions(extra))
    body = "\n".join(lines)
    return (
        "// Generated by tools/generate-bundled-declarations.py from Data/*.plist. Do not edit.\n\n"
        "enum BundledDeclarationData {\n"
        f"    static let files: [String] = [{', '.join(repr(n).replace(chr(39), chr(34)) for n in names)}]\n\n"
        f"    static let count = {len(lines)}\n\n"
        "    static let records = \"\"\"\n"
        f"{body}\n"
        "\"\"\"\n"
        "}\n"
    )


def main():
    text = render()
    if "--check" in sys.argv[1:]:
        with open(OUT, encoding="utf-8") as f:
            if f.read() != text:
                sys.exit("BundledDeclarationData.swift is out of date: run tools/generate-bundled-declarations.py")
        return
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {os.path.relpath(OUT, ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
