#!/usr/bin/env python3
"""Times `uti inbox` against a plain rename loop on the same files.

Three timings, each the median of --runs whole-process runs, interleaved:
  plain loop     tools/inbox/plain-rename.c: rename(2) of every Inbox entry
  no collisions  uti inbox over N files whose names are free in Documents
  all collide    uti inbox over N files whose names Documents already holds
                 (every file takes the next counter: doc-00001-1.pdf)
Targets: no collisions within 1.2x of the plain loop; all colliding within
1.5x of no collisions. uti runs as README installs it (tools/build-release.sh:
one static executable) with the system's MIME data, --settle 0 (the
files are brand new) and its open-writer check on.

Usage: tools/bench-inbox.py [--files N] [--runs R] [--dir FOLDER]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build():
    env = dict(os.environ)
    if shutil.which("swift") is None and os.path.exists("/opt/swift/usr/bin/swift"):
        env["PATH"] = "/opt/swift/usr/bin:" + env["PATH"]
    uti = subprocess.run([os.path.join(ROOT, "tools", "build-release.sh")], env=env, check=True, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.strip()
    plain = os.path.join(ROOT, ".build", "tools", "plain-rename")
    os.makedirs(os.path.dirname(plain), exist_ok=True)
    subprocess.run(["cc", "-O2", "-o", plain, os.path.join(ROOT, "tools", "inbox", "plain-rename.c")], check=True)
    return uti, plain


def prepare(base, files, collide):
    """A fresh Documents/Inbox with `files` small files; Documents holds the same names when `collide`."""
    documents = os.path.join(base, "Documents")
    if os.path.exists(documents):
        shutil.rmtree(documents)
    inbox = os.path.join(documents, "Inbox")
    os.makedirs(inbox)
    for i in range(files):
        name = "doc-%05d.pdf" % i
        with open(os.path.join(inbox, name), "wb") as f:
            f.write(b"%PDF-1.4 inbox " + name.encode())
        if collide:
            with open(os.path.join(documents, name), "wb") as f:
                f.write(b"%PDF-1.4 documents " + name.encode())
    os.sync()
    return documents


def timed(command):
    start = time.perf_counter()
    result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit("%s failed (%d): %s" % (" ".join(command), result.returncode, result.stderr.decode()))
    return elapsed


def check(documents, files, collide, plain):
    names = set(os.listdir(documents))
    if plain and not os.listdir(os.path.join(documents, "Inbox")):
        names.discard("Inbox")  # the plain loop does not remove the Inbox
    if "Inbox" in names:
        sys.exit("the Inbox was not emptied")
    expected = files * (2 if collide else 1)
    if len(names) != expected:
        sys.exit("expected %d files in Documents, found %d" % (expected, len(names)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--dir", default=tempfile.gettempdir(), help="where to make the folders (its file system is measured)")
    args = parser.parse_args()
    uti, plain = build()
    base = tempfile.mkdtemp(prefix="uti-bench-inbox-", dir=args.dir)
    times = {"plain": [], "free": [], "collide": []}
    try:
        for _ in range(args.runs):
            for kind in ("plain", "free", "collide"):
                documents = prepare(base, args.files, kind == "collide")
                if kind == "plain":
                    command = [plain, documents]
                else:
                    command = [uti, "inbox", documents, "--settle", "0"]
                times[kind].append(timed(command))
                check(documents, args.files, kind == "collide", kind == "plain")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    plain_t, free_t, collide_t = (statistics.median(times[k]) for k in ("plain", "free", "collide"))
    fs = subprocess.run(["stat", "-f", "-c", "%T", args.dir], capture_output=True, text=True).stdout.strip()
    print("%d files on %s (%s), median of %d runs, %d cores" % (args.files, args.dir, fs, args.runs, os.cpu_count()))
    print("%-32s %10s %8s %8s" % ("", "median", "ratio", "target"))
    print("%-32s %8.1f ms %8s %8s" % ("plain rename loop (C)", plain_t * 1e3, "1.00", ""))
    print("%-32s %8.1f ms %7.2fx %8s" % ("uti inbox, no collisions", free_t * 1e3, free_t / plain_t, "<= 1.2x"))
    print("%-32s %8.1f ms %7.2fx %8s" % ("uti inbox, all collide", collide_t * 1e3, collide_t / free_t, "<= 1.5x"))
    print("(all collide is the ratio to no collisions; per file: %.1f us plain, %.1f us no collisions, %.1f us all collide)"
          % (plain_t / args.files * 1e6, free_t / args.files * 1e6, collide_t / args.files * 1e6))


if __name__ == "__main__":
    main()
