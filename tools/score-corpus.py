#!/usr/bin/env python3
"""Scores the MIME types uti, GIO and file(1) give a corpus of sample files
against the format each sample was made as, which its extension names.

Usage: tools/score-corpus.py [--uti PATH] [--stdin] [--json] CORPUS

Two modes: "named", each file under its own name; "content", no name to go
by: `uti file --content` (or uti reading the file on standard input when
the binary has no --content, or --stdin asks), GIO on a copy named `sample`
in a temporary folder, and file(1), which ignores names, as in the named
mode. GIO is asked through .build/tools/gio-content-type when
tools/gio/build.sh has built it, else through `gio info`. Prints one row per file (✓ right, ✗ wrong), the
files left out and why, then each tool's score per mode; --json prints the
same as one JSON object. Exit 0 when scored, 2 when CORPUS is not a folder
or uti, gio or file cannot be run.
"""
import argparse, json, os, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Extension -> the MIME types right for that format: shared-mime-info's name
# first, then its aliases (/usr/share/mime/aliases) and IANA's names (video/jxsv:
# RFC 9134; video/matroska: RFC 9559; application/vnd.microsoft.portable-executable),
# and application/x-msdownload, newer shared-mime-info's name for Windows
# programs. The container of a format (application/zip for docx,
# application/vnd.ms-asf for wmv) is not in its set.
TRUTH = {
    "3g2": ["video/3gpp2", "audio/3gpp2"],
    "7z": ["application/x-7z-compressed"],
    "aac": ["audio/aac", "audio/x-aac"],
    "aif": ["audio/x-aiff"],
    "avi": ["video/x-msvideo", "video/avi", "video/divx", "video/msvideo", "video/vnd.divx", "video/x-avi"],
    "avif": ["image/avif", "image/avif-sequence"],
    "bmp": ["image/bmp", "image/x-bmp", "image/x-MS-bmp"],
    "bz2": ["application/x-bzip", "application/x-bzip2", "application/bzip2"],
    "doc": ["application/msword", "application/vnd.ms-word", "application/x-msword",
            "zz-application/zz-winassoc-doc"],
    "docx": ["application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
    "exe": ["application/x-ms-dos-executable", "application/x-msdownload",
            "application/vnd.microsoft.portable-executable"],
    "flv": ["video/x-flv", "video/flv", "application/x-flash-video", "flv-application/octet-stream"],
    "gif": ["image/gif"],
    "gz": ["application/gzip", "application/x-gzip"],
    "heic": ["image/heif", "image/heic", "image/heic-sequence", "image/heif-sequence"],
    "ico": ["image/vnd.microsoft.icon", "image/x-icon", "image/ico", "image/icon", "image/x-ico",
            "application/ico", "text/ico"],
    "iso": ["application/x-cd-image", "application/x-iso9660-image"],
    "jpg": ["image/jpeg", "image/pjpeg"],
    "jpx": ["image/jpx"],
    "jxsv": ["video/jxsv"],
    "lz4": ["application/x-lz4"],
    "m4a": ["audio/mp4", "audio/x-m4a", "audio/m4a"],
    "mkv": ["video/x-matroska", "video/matroska"],
    "mov": ["video/quicktime"],
    "mp3": ["audio/mpeg", "audio/mp3", "audio/x-mp3", "audio/x-mpeg", "audio/x-mpg"],
    "mp4": ["video/mp4", "video/mp4v-es", "video/x-m4v"],
    "mpg": ["video/mpeg", "video/x-mpeg", "video/mpeg-system", "video/x-mpeg-system", "video/x-mpeg2"],
    "odp": ["application/vnd.oasis.opendocument.presentation"],
    "ods": ["application/vnd.oasis.opendocument.spreadsheet"],
    "odt": ["application/vnd.oasis.opendocument.text"],
    "png": ["image/png"],
    "ppt": ["application/vnd.ms-powerpoint", "application/mspowerpoint", "application/powerpoint",
            "application/x-mspowerpoint"],
    "pptx": ["application/vnd.openxmlformats-officedocument.presentationml.presentation"],
    "psd": ["image/vnd.adobe.photoshop", "image/x-psd", "image/psd", "image/photoshop", "image/x-photoshop",
            "application/photoshop", "application/x-photoshop"],
    "rar": ["application/vnd.rar", "application/x-rar", "application/x-rar-compressed"],
    "svg": ["image/svg+xml"],
    "swf": ["application/vnd.adobe.flash.movie", "application/x-shockwave-flash", "application/futuresplash"],
    "tar": ["application/x-tar", "application/x-gtar"],
    "tga": ["image/x-tga", "image/x-targa", "image/targa", "image/tga", "image/x-icb", "application/tga",
            "application/x-targa", "application/x-tga"],
    "tif": ["image/tiff"],
    "txt": ["text/plain"],
    "vmdk": ["application/x-vmdk-disk", "application/x-virtualbox-vmdk"],
    "wav": ["audio/x-wav", "audio/wav", "audio/vnd.wave"],
    "webp": ["image/webp"],
    "wmv": ["video/x-ms-wmv"],
    "xcf": ["image/x-xcf"],
    "xls": ["application/vnd.ms-excel", "application/msexcel", "application/x-msexcel",
            "zz-application/zz-winassoc-xls"],
    "xlsx": ["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"],
    "xz": ["application/x-xz"],
    "zip": ["application/zip", "application/x-zip", "application/x-zip-compressed"],
    "zst": ["application/zstd"],
}

# Files whose truth is not a format, by name, or by name ending for keys that
# start with "." or " ".
SKIP = {
    "LICENSE": "the project's licence text, not a sample",
    "fake_file": "bytes made to match no format",
    ".puremagic_multi_footer": "text made for puremagic's footer rules, not a format",
    " (split).vmdk": "the text descriptor of a disk split in parts the corpus lacks",
    ".mdf": "no MIME type names this format (shared-mime-info, IANA)",
    ".pcapng": "no MIME type names this format (shared-mime-info, IANA)",
}

# What a reader of the scores should know about a sample. Samples whose bytes
# are another format than their name says are scored by the name all the
# same, as their authors meant.
NOTES = {
    "test.aac": "file's audio/x-hx-aac-adts is this format under a name of its own, in no list above",
    "sample.jpx": "its bytes are a JP2 file (brand 'jp2 '), not JPX",
    "test.3g2": "its bytes are a 3GPP file (brands 3gp5, 3gp4), not 3GPP2",
}

COLUMNS = ["uti named", "uti content", "gio named", "gio content", "file"]


def answer(command, stdin=None):
    run = subprocess.run(command, stdin=stdin, capture_output=True, text=True, errors="replace")
    out = run.stdout.strip()
    if run.returncode != 0 and not out:
        return "error: " + (run.stderr.strip().splitlines() or [f"exit {run.returncode}"])[0]
    return out


def skip_reason(name):
    for key, reason in SKIP.items():
        if name == key or (key[0] in ". " and name.endswith(key)):
            return reason
    extension = os.path.splitext(name)[1][1:].lower()
    return None if extension in TRUTH else "no truth for this extension"


def versions(uti, door):
    def first(command):
        run = subprocess.run(command, capture_output=True, text=True, errors="replace")
        return (run.stdout + run.stderr).strip().partition("\n")[0] or "?"
    return {"uti": first([uti, "--version"]), "uti content door": door, "file": first(["file", "--version"]),
            "GIO": first(["gio", "version"]),
            "shared-mime-info": first(["update-mime-database", "-v"])}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uti", default=os.path.join(ROOT, ".build/debug/uti"))
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--stdin", action="store_true", help="content mode through standard input")
    parser.add_argument("corpus")
    args = parser.parse_args()
    if not os.path.isdir(args.corpus):
        print(f"score-corpus: no folder at {args.corpus}", file=sys.stderr)
        return 2
    for tool in (args.uti, "gio", "file"):
        if not shutil.which(tool):
            print(f"score-corpus: {tool} is not installed or not executable", file=sys.stderr)
            return 2
    has_content = not args.stdin and "--content" in answer([args.uti, "file", "--help"])
    door = "uti file --content" if has_content else "standard input (uti file -)"
    helper = os.path.join(ROOT, ".build/tools/gio-content-type")
    gio_door = helper if os.access(helper, os.X_OK) else "gio info"
    if gio_door == helper:
        gio = lambda path: subprocess.run([helper, "files"], input=path + "\n", capture_output=True,
                                          text=True).stdout.partition("\t")[0]
    else:
        gio = lambda path: answer(["gio", "info", "-a", "standard::content-type", path]).rpartition(": ")[2]

    rows, skipped = [], []
    scratch = tempfile.mkdtemp()
    copy = os.path.join(scratch, "sample")
    try:
        for folder, _, names in sorted(os.walk(args.corpus)):
            for name in sorted(names):
                path = os.path.join(folder, name)
                shown = os.path.relpath(path, args.corpus)
                reason = skip_reason(name)
                if reason:
                    skipped.append({"path": shown, "reason": reason})
                    continue
                shutil.copyfile(path, copy)
                if has_content:
                    content = answer([args.uti, "file", "--content", "--mime", "--", path])
                else:
                    with open(path, "rb") as f:
                        content = answer([args.uti, "file", "--mime", "-"], stdin=f)
                answers = dict(zip(COLUMNS, [
                    answer([args.uti, "file", "--mime", "--", path]), content,
                    gio(path), gio(copy), answer(["file", "--mime-type", "-b", "--", path])]))
                truth = TRUTH[os.path.splitext(name)[1][1:].lower()]
                rows.append({"path": shown, "truth": truth, "answers": answers,
                             "right": {c: answers[c] in truth for c in COLUMNS},
                             "note": NOTES.get(name)})
    finally:
        shutil.rmtree(scratch)

    scores = {c: {"right": sum(r["right"][c] for r in rows), "total": len(rows)} for c in COLUMNS}
    info = versions(args.uti, door)
    info["GIO door"] = gio_door
    if args.json:
        json.dump({"versions": info, "files": rows, "skipped": skipped, "scores": scores}, sys.stdout, indent=2,
                  ensure_ascii=False)
        print()
        return 0
    for key, value in info.items():
        print(f"{key}: {value}")
    table = [["file", "truth"] + COLUMNS]
    for r in rows:
        table.append([r["path"] + (" *" if r["note"] else ""), r["truth"][0]] +
                     [("✓ " if r["right"][c] else "✗ ") + r["answers"][c] for c in COLUMNS])
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    print()
    for line in table:
        print("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip())
    for r in rows:
        if r["note"]:
            print(f"* {r['path']}: {r['note']}")
    print("\nskipped:")
    for s in skipped:
        print(f"  {s['path']}: {s['reason']}")
    print("\nscores (right/total):")
    for c in COLUMNS:
        print(f"  {c:12} {scores[c]['right']}/{scores[c]['total']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
