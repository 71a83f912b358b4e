#!/usr/bin/env python3
"""Writes a libFuzzer seed corpus for one fuzz driver from the files on this
machine (and the project's own data and fixtures).

    make-seeds.py DRIVER OUTDIR

Large files are cut into small, still well-formed pieces (one type per
package or property list, a few dozen lines per text file), so that the
fuzzer mutates inputs it can run thousands of times a second.
"""
import glob
import hashlib
import os
import plistlib
import re
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SIZE_LIMIT = 64 << 10


def read(path, limit=None):
    try:
        with open(path, "rb") as f:
            return f.read(limit) if limit else f.read()
    except OSError:
        return None


def declaration_plists():
    """Every type declaration the project ships or its tests use, one per plist."""
    sources = sorted(glob.glob(os.path.join(ROOT, "Data", "*.plist")))
    sources += sorted(glob.glob(os.path.join(ROOT, "Tests", "*", "Fixtures", "*.plist")))
    for path in sources:
        data = read(path)
        try:
            plist = plistlib.loads(data)
        except Exception:
            yield data  # malformed on purpose: a seed as it is
            continue
        if not isinstance(plist, dict):
            continue
        for key in ("UTExportedTypeDeclarations", "UTImportedTypeDeclarations"):
            for item in plist.get(key, []) or []:
                yield {key: [item]}
        rest = {k: v for k, v in plist.items() if k not in ("UTExportedTypeDeclarations", "UTImportedTypeDeclarations")}
        if rest:
            yield rest


def xml_plist():
    for item in declaration_plists():
        yield item if isinstance(item, bytes) else plistlib.dumps(item, fmt=plistlib.FMT_XML)


def binary_plist():
    for item in declaration_plists():
        if isinstance(item, dict):
            yield plistlib.dumps(item, fmt=plistlib.FMT_BINARY)
    for path in glob.glob(os.path.join(ROOT, "Tests", "*", "Fixtures", "*.bplist")):
        yield read(path)


def mime_package():
    """Each <mime-type> of the installed packages as a package of its own."""
    files = sorted(glob.glob("/usr/share/mime/packages/*.xml"))
    files += sorted(glob.glob(os.path.join(ROOT, "Tests", "*", "Fixtures", "**", "packages", "*.xml"), recursive=True))
    for path in files:
        text = read(path).decode("utf-8", "replace")
        head = re.search(r"<mime-info[^>]*>", text)
        if not head:
            yield text.encode()
            continue
        for m in re.finditer(r"<mime-type\b.*?</mime-type>", text, re.S):
            yield ('<?xml version="1.0" encoding="UTF-8"?>\n' + head.group(0) + "\n" + m.group(0) + "\n</mime-info>\n").encode()
    for path in sorted(glob.glob("/usr/share/mime/*/*.xml"))[:300]:
        yield read(path)


def mime_cache():
    """The installed and fixture caches, and small caches that
    update-mime-database builds from a few types of the installed packages
    each, so that most runs are short."""
    for path in ["/usr/share/mime/mime.cache"] + sorted(glob.glob(os.path.join(ROOT, "Tests", "**", "mime.cache"), recursive=True)):
        yield read(path)
    packages = list(mime_package())[:600]
    with tempfile.TemporaryDirectory() as tmp:
        for group in range(0, len(packages), 6):
            folder = os.path.join(tmp, str(group))
            os.makedirs(os.path.join(folder, "packages"))
            for i, package in enumerate(packages[group:group + 6]):
                with open(os.path.join(folder, "packages", f"p{i}.xml"), "wb") as f:
                    f.write(package)
            if subprocess.run(["update-mime-database", folder], capture_output=True).returncode == 0:
                yield read(os.path.join(folder, "mime.cache"))


def chunks(path, lines_per_chunk, header=b""):
    data = read(path)
    if data is None:
        return
    body = data[len(header):] if header and data.startswith(header) else data
    lines = body.split(b"\n")
    for i in range(0, len(lines), lines_per_chunk):
        yield header + b"\n".join(lines[i:i + lines_per_chunk]) + b"\n"


def mime_text():
    yield from chunks("/etc/mime.types", 40)
    yield from chunks("/usr/share/mime/types", 60)
    yield from chunks("/usr/share/mime/treemagic", 12, header=b"MIME-TreeMagic\0\n")
    for path in glob.glob(os.path.join(ROOT, "Tests", "**", "treemagic"), recursive=True):
        yield read(path)


def desktop_entry():
    patterns = ["/usr/share/applications/*", "/usr/local/share/applications/*", "/etc/xdg/autostart/*.desktop",
                "/etc/xdg/*mimeapps.list", os.path.expanduser("~/.config/*mimeapps.list"),
                os.path.expanduser("~/.local/share/applications/*")]
    for pattern in patterns:
        for path in sorted(glob.glob(pattern)):
            if os.path.isfile(path):
                yield from chunks(path, 40)
    yield (b"[Desktop Entry]\nType=Application\nName=Viewer\nName[de]=Betrachter\nIcon=viewer\n"
           b"Exec=viewer --name %c --icon %i %k \"%F\" 'x' \\\\$HOME %%\nTryExec=viewer\n"
           b"MimeType=image/png;image/jpeg;\nTerminal=false\n")
    yield b"[Default Applications]\nimage/png=viewer.desktop;other.desktop;\n[Added Associations]\ntext/plain=a.desktop;\n[Removed Associations]\ntext/x-c=b.desktop\n"


def magic():
    """The first 4 KiB of files of as many different MIME types as the machine has."""
    seen = set()
    roots = ["/usr/share", "/usr/lib", "/usr/bin", "/etc", os.path.join(ROOT, "Tests")]
    candidates = []
    for root in roots:
        for folder, _, names in os.walk(root):
            for name in names[:20]:
                candidates.append(os.path.join(folder, name))
            if len(candidates) > 40000:
                break
    by_type = {}
    for i in range(0, len(candidates), 500):
        batch = [p for p in candidates[i:i + 500] if os.path.isfile(p) and not os.path.islink(p)]
        if not batch:
            continue
        out = subprocess.run(["file", "--brief", "--mime-type", "--", *batch], capture_output=True, text=True).stdout.splitlines()
        for path, kind in zip(batch, out):
            if kind not in by_type:
                by_type[kind] = path
    for kind, path in sorted(by_type.items()):
        data = read(path, 4096)
        if data and data not in seen:
            seen.add(data)
            yield data


def dynamic_identifier():
    """The payloads of the dyn.a identifiers the tests name, and extensions."""
    for path in glob.glob(os.path.join(ROOT, "Tests", "**", "*.swift"), recursive=True):
        for m in re.finditer(rb"dyn\.a([0-9a-z]+)", read(path)):
            yield m.group(1)
    for line in (read("/etc/mime.types") or b"").split(b"\n")[:400]:
        fields = line.split()
        if len(fields) > 1 and not fields[0].startswith(b"#"):
            yield fields[1]


def registry_image():
    """Compiled registries the driver writes itself (it knows the format)."""
    return []


DRIVERS = {
    "xml-plist": xml_plist, "binary-plist": binary_plist, "mime-package": mime_package, "mime-cache": mime_cache,
    "mime-text": mime_text, "desktop-entry": desktop_entry, "magic": magic, "dynamic-identifier": dynamic_identifier,
    "registry-image": registry_image,
}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in DRIVERS:
        sys.exit(f"usage: make-seeds.py {{{'|'.join(DRIVERS)}}} OUTDIR")
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    count = 0
    for seed in DRIVERS[sys.argv[1]]():
        if not seed or len(seed) > SIZE_LIMIT and sys.argv[1] not in ("mime-cache",):
            continue
        name = hashlib.sha1(seed).hexdigest()
        with open(os.path.join(out, name), "wb") as f:
            f.write(seed)
        count += 1
    print(f"{count} seeds in {out}")


if __name__ == "__main__":
    main()
