#!/usr/bin/env python3
"""Compares `uti file` with GIO's standard::content-type (what
`gio info -a standard::content-type` prints) over every regular file under
the given folders (default /usr/share and /usr/lib).

Usage: tools/compare-files-with-gio.py [--uti PATH] [--limit N] [FOLDER...]
Prints the agreement rate, the disagreements grouped by (GIO, uti) pair
with an example path, and exits 0 when agreement is at least 99.5%.
"""
import argparse, collections, json, os, stat, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

def regular_files(folders, limit):
    found = []
    for folder in folders:
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames.sort()
            for name in sorted(filenames):
                path = os.path.join(dirpath, name)
                try:
                    mode = os.lstat(path).st_mode
                except OSError:
                    continue
                if stat.S_ISREG(mode) and "\n" not in path:
                    found.append(path)
                    if limit and len(found) >= limit:
                        return found
    return found

def size(path):
    try:
        return os.lstat(path).st_size
    except OSError:
        return -1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--uti", default=os.path.join(ROOT, ".build/release/uti"))
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--show", type=int, default=60, help="disagreement groups to print")
    parser.add_argument("folders", nargs="*", default=["/usr/share", "/usr/lib"])
    args = parser.parse_args()
    gio = subprocess.run([os.path.join(ROOT, "tools/gio/build.sh")], check=True,
                         capture_output=True, text=True).stdout.strip()
    files = regular_files(args.folders, args.limit)
    reference = {}
    out = subprocess.run([gio, "files"], input="\n".join(files) + "\n", capture_output=True,
                         text=True, check=True, errors="surrogateescape").stdout
    for line in out.splitlines():
        answer, _, path = line.split("\t", 2)
        reference[path] = answer
    ours, rows = {}, {}
    for start in range(0, len(files), 2000):
        chunk = files[start:start + 2000]
        run = subprocess.run([args.uti, "file", "--json", "--"] + chunk, capture_output=True, text=True,
                             errors="surrogateescape")
        for row in json.loads(run.stdout):
            ours[row["path"]] = row.get("mimeType") or ("ERROR: " + row.get("error", "?"))
            rows[row["path"]] = row
    groups = collections.defaultdict(list)
    explained = collections.defaultdict(list)
    compared = agree = 0
    for path in files:
        g = reference.get(path)
        if g is None or g == "ERROR":
            continue
        compared += 1
        row = rows.get(path, {})
        candidates = row.get("nameCandidates") or []
        if ours.get(path) == g:
            agree += 1
        elif g == "text/plain" and ours.get(path) == "application/x-zerosize":
            # An empty file whose name does not decide (GIO: text/plain).
            explained["empty, the name does not decide"].append(path)
        elif g == "text/plain" and row.get("basis") == "name" and size(path) == 0:
            # An empty file typed by its name, as Apple types it (GIO: text/plain).
            explained["empty, typed by its name"].append(path)
        elif not row.get("certain", True) and g in candidates and ours.get(path) in candidates:
            # Several globs and no deciding content: the extension's type picks.
            explained["several globs, the extension's type picks"].append(path)
        else:
            groups[(g, ours.get(path))].append(path)
    rate = 100.0 * agree / compared if compared else 0.0
    print(f"files compared: {compared} (folders: {' '.join(args.folders)})")
    print(f"agreement: {agree}/{compared} = {rate:.3f}%")
    for reason, paths in explained.items():
        print(f"  explained, {reason}: {len(paths)}, e.g. {paths[0]}")
    rate = 100.0 * (agree + sum(map(len, explained.values()))) / compared if compared else 0.0
    print(f"agreement counting the explained: {rate:.3f}%")
    for (g, u), paths in sorted(groups.items(), key=lambda kv: -len(kv[1]))[:args.show]:
        print(f"  {len(paths):6d}  gio {g}  uti {u}  e.g. {paths[0]}")
    return 0 if rate >= 99.5 else 1

if __name__ == "__main__":
    sys.exit(main())
