#!/usr/bin/env python3
"""Runs README's everyday examples and compares what they print.

    tools/check-readme.py UTI      run each ```console block of README.md with
                                   the binary UTI first on PATH; exit 1 and show
                                   the difference when an output is not the one
                                   README shows

Each block runs in a new folder holding what README's examples describe:
logo.png (a PNG), screenshot (the same bytes), invoice.pdf (the same bytes
again), report (a Word document without an extension), notes.md, notes.txt,
an executable shell script `backup` and a folder `photos` holding trip.png. A
block whose commands run `uti inbox` gets a Documents folder instead:
Documents/report.pdf, and Documents/Inbox holding logo.png, notes.md and
another report.pdf, settled (unchanged for the inbox's 2 s). HOME and the XDG folders are new, so no cache
or setting of the user's is read; they hold one desktop entry,
~/.local/share/applications/textedit.desktop, which opens text and Markdown
(its command is `true`). The scratch home is printed as ~. The outputs name the system's data files
(/usr/share/mime, /etc/mime.types), so they are those of Debian 12 with its
shared-mime-info and media-types packages, which .ci/run installs.
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def png_bytes():
    """A 1x1 grey PNG."""

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00\x80"))
            + chunk(b"IEND", b""))


TEXTEDIT = b"""[Desktop Entry]
Type=Application
Name=Text Edit
Exec=true %F
MimeType=text/plain;text/markdown;
"""

PDF = b"%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n"


def write(path, data, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, mode)


def make_examples(folder):
    png = png_bytes()
    write(os.path.join(folder, "logo.png"), png)
    write(os.path.join(folder, "screenshot"), png)
    write(os.path.join(folder, "invoice.pdf"), png)
    with zipfile.ZipFile(os.path.join(folder, "report"), "w") as document:
        document.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types/>')
        document.writestr("_rels/.rels", '<?xml version="1.0"?><Relationships/>')
        document.writestr("word/document.xml", '<?xml version="1.0"?><document/>')
    write(os.path.join(folder, "notes.md"), b"# Notes\n\nA list of things.\n")
    write(os.path.join(folder, "notes.txt"), b"Notes, plain.\n")
    write(os.path.join(folder, "backup"), b"#!/bin/sh\ntar czf /tmp/backup.tar.gz \"$HOME/Documents\"\n", 0o755)
    write(os.path.join(folder, "photos", "trip.png"), png)


def make_documents(folder):
    documents = os.path.join(folder, "Documents")
    write(os.path.join(documents, "report.pdf"), PDF)
    write(os.path.join(documents, "Inbox", "logo.png"), png_bytes())
    write(os.path.join(documents, "Inbox", "notes.md"), b"# Notes\n")
    write(os.path.join(documents, "Inbox", "report.pdf"), PDF + b"% the second one\n")


def blocks(readme):
    """Each console block: a list of (command, expected output lines)."""
    for match in re.finditer(r"```console\n(.*?)```", readme, re.S):
        steps = []
        for line in match.group(1).splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            elif steps:
                steps[-1][1].append(line)
        line_number = readme.count("\n", 0, match.start()) + 1
        yield line_number, steps


def run_block(uti, steps, scratch):
    folder = os.path.join(scratch, "work")
    os.makedirs(folder)
    if any(re.search(r"\buti inbox\b", command) for command, _ in steps):
        make_documents(folder)
        # The inbox moves an item once its status has not changed for its
        # settle interval (2 s), as README's items have long settled.
        time.sleep(2.5)
    else:
        make_examples(folder)
    home = os.path.join(scratch, "home")
    env = {
        "PATH": os.path.dirname(os.path.abspath(uti)) + ":/usr/bin:/bin",
        "HOME": home,
        "XDG_CONFIG_HOME": os.path.join(home, ".config"),
        "XDG_CACHE_HOME": os.path.join(home, ".cache"),
        "XDG_DATA_HOME": os.path.join(home, ".local/share"),
        "XDG_STATE_HOME": os.path.join(home, ".local/state"),
        "LANG": "C.UTF-8",
    }
    os.makedirs(home)
    write(os.path.join(home, ".local/share/applications/textedit.desktop"), TEXTEDIT)
    marker = "@@check-readme-step@@"
    script = "".join(f"printf '%s\\n' '{marker}'\n{command}\n" for command, _ in steps)
    result = subprocess.run(["bash", "-c", script], cwd=folder, env=env, capture_output=True, text=True,
                            stdin=subprocess.DEVNULL)
    outputs = result.stdout.split(marker + "\n")[1:]
    problems = []
    for index, (command, expected) in enumerate(steps):
        got = outputs[index].replace(home, "~").splitlines() if index < len(outputs) else ["(not run)"]
        if got != expected:
            problems.append((command, expected, got))
    if result.stderr:
        problems.append(("(standard error)", [], result.stderr.splitlines()))
    return problems


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip().split("\n\n")[1])
        return 0 if len(sys.argv) == 2 else 2
    uti = sys.argv[1]
    if not os.access(uti, os.X_OK):
        print(f"check-readme.py: {uti} is not an executable", file=sys.stderr)
        return 2
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    failed = 0
    count = 0
    for line, steps in blocks(readme):
        count += 1
        scratch = tempfile.mkdtemp(prefix="uti-readme-")
        try:
            for command, expected, got in run_block(uti, steps, scratch):
                failed += 1
                print(f"README.md:{line}: $ {command}")
                for text in expected:
                    print(f"  - {text}")
                for text in got:
                    print(f"  + {text}")
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    if count == 0:
        print("check-readme.py: README.md has no console block", file=sys.stderr)
        return 1
    if failed:
        print(f"check-readme.py: {failed} example(s) of README.md print something else (- README, + now)")
        return 1
    print(f"check-readme.py: the {count} console blocks of README.md print what they show")
    return 0


if __name__ == "__main__":
    sys.exit(main())
