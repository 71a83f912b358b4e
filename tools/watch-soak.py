#!/usr/bin/env python3
"""Soak test of `uti watch`: a steady stream of arrivals, appends, renames
(of files and folders) and deletions in a watched tree for a long time.

The events `uti watch -r --json` prints are applied to a model of the tree;
at each checkpoint the operations pause until everything has settled, and
the model must equal what is on disk (every change reported, none twice: an
item added twice, removed or renamed without being known is an error). The
watcher's resident memory is sampled at each checkpoint.

    tools/watch-soak.py --uti .build/release/uti --duration 3600 --report docs/watch-soak.md

Exit 0 when every checkpoint matched, 1 otherwise.
"""

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time


class Model:
    """The tree as the events describe it."""

    def __init__(self):
        self.items = {}
        self.errors = []
        self.events = 0
        self.rescans = 0
        self.lock = threading.Lock()

    def apply(self, event):
        with self.lock:
            kind = event["event"]
            if kind == "rescan":
                self.rescans += 1
                return
            self.events += 1
            path = event["path"]
            if kind == "added":
                if path in self.items:
                    self.errors.append(f"added twice: {path}")
                self.items[path] = event["kind"]
            elif kind == "removed":
                if self.items.pop(path, None) is None:
                    self.errors.append(f"removed but not known: {path}")
            elif kind == "changed":
                if path not in self.items:
                    self.errors.append(f"changed but not known: {path}")
            elif kind == "renamed":
                old = event["from"]
                if old not in self.items:
                    self.errors.append(f"renamed but not known: {old}")
                moved = {p: k for p, k in self.items.items() if p == old or p.startswith(old + "/")}
                for p in moved:
                    del self.items[p]
                # Whatever the rename replaced is gone.
                for p in [p for p in self.items if p == path or p.startswith(path + "/")]:
                    del self.items[p]
                for p, k in moved.items():
                    self.items[path + p[len(old):]] = k


def disk_state(root):
    items = {}
    for folder, folders, files in os.walk(root):
        for name in folders:
            items[os.path.join(folder, name)] = "folder"
        for name in files:
            items[os.path.join(folder, name)] = "file"
    return items


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--uti", default=".build/release/uti")
    parser.add_argument("--duration", type=float, default=3600, help="seconds of operations")
    parser.add_argument("--rate", type=float, default=40, help="operations a second")
    parser.add_argument("--settle", type=float, default=0.3)
    parser.add_argument("--checkpoint", type=float, default=60, help="seconds between checkpoints")
    parser.add_argument("--report", help="write a Markdown report here")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--overflow-every", type=int, default=5,
        help="every N checkpoints, stop uti (SIGSTOP) while 17,000 files arrive so its queue overflows, "
        "and remove them after the next checkpoint (0: never)")
    args = parser.parse_args()

    random.seed(args.seed)
    root = tempfile.mkdtemp(prefix="uti-soak-")
    watcher = subprocess.Popen(
        [args.uti, "watch", "-r", "--json", "--settle", str(args.settle), root],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "UTI_CACHE_DIR": ""})
    model = Model()
    if not watcher.stderr.readline().startswith("uti: watching"):
        sys.exit("uti watch did not start")

    def read_events():
        for line in watcher.stdout:
            model.apply(json.loads(line))

    reader = threading.Thread(target=read_events, daemon=True)
    reader.start()

    folders = [root]
    files = []
    operations = {
        "create": 0, "append": 0, "rename": 0, "delete": 0, "mkdir": 0, "rename-folder": 0, "delete-folder": 0,
        "quick-folder": 0, "burst": 0, "burst-removed": 0}
    checkpoints = []
    counter = 0
    start = time.monotonic()
    next_checkpoint = start + args.checkpoint
    failed = False

    burst = [None]

    def overflow():
        """Files arrive while uti is stopped: the kernel's queue overflows."""
        folder = os.path.join(root, f"burst{counter}")
        os.mkdir(folder)
        time.sleep(args.settle + 1)
        os.kill(watcher.pid, signal.SIGSTOP)
        try:
            for n in range(17_000):
                with open(os.path.join(folder, f"b{n}"), "w"):
                    pass
        finally:
            os.kill(watcher.pid, signal.SIGCONT)
        operations["burst"] += 17_000
        burst[0] = folder

    def checkpoint():
        time.sleep(args.settle + 1.5)
        with model.lock:
            on_disk = disk_state(root)
            missing = sorted(set(on_disk) - set(model.items))
            extra = sorted(set(model.items) - set(on_disk))
            errors = list(model.errors)
            row = {
                "seconds": round(time.monotonic() - start),
                "operations": sum(operations.values()),
                "events": model.events,
                "rescans": model.rescans,
                "items": len(on_disk),
                "unreported": len(missing),
                "phantom": len(extra),
                "errors": len(errors),
                "rss_mib": round(rss_kib(watcher.pid) / 1024, 1),
            }
        checkpoints.append(row)
        print(json.dumps(row), flush=True)
        for text in missing[:5]:
            print("  not reported:", text)
        for text in extra[:5]:
            print("  reported but not there:", text)
        for text in errors[:5]:
            print("  error:", text)
        return not missing and not extra and not errors

    while time.monotonic() - start < args.duration:
        counter += 1
        choice = random.random()
        try:
            if choice < 0.35 or len(files) < 20:
                path = os.path.join(random.choice(folders), f"f{counter}.{random.choice(['txt', 'png', 'pdf', 'md'])}")
                with open(path, "w") as f:
                    f.write("x" * random.randint(0, 5000))
                files.append(path)
                operations["create"] += 1
            elif choice < 0.55:
                path = random.choice(files)
                with open(path, "a") as f:
                    f.write("more")
                operations["append"] += 1
            elif choice < 0.75:
                index = random.randrange(len(files))
                new = os.path.join(random.choice(folders), f"r{counter}.{random.choice(['txt', 'jpg', 'json'])}")
                os.rename(files[index], new)
                files[index] = new
                operations["rename"] += 1
            elif choice < 0.93:
                path = files.pop(random.randrange(len(files)))
                os.unlink(path)
                operations["delete"] += 1
            elif choice < 0.945:
                # A folder made, filled and renamed at once: one batch of events names it under two paths.
                first = os.path.join(random.choice(folders), f"q{counter}")
                os.mkdir(first)
                os.mkdir(os.path.join(first, "inner"))
                with open(os.path.join(first, "inner", "f.txt"), "w") as f:
                    f.write("x")
                moved = first + "-moved"
                os.rename(first, moved)
                folders += [moved, os.path.join(moved, "inner")]
                files.append(os.path.join(moved, "inner", "f.txt"))
                operations["quick-folder"] += 1
            elif choice < 0.955 or len(folders) < 3:
                path = os.path.join(random.choice(folders), f"d{counter}")
                os.mkdir(path)
                folders.append(path)
                operations["mkdir"] += 1
            elif choice < 0.965:
                old = random.choice(folders[1:])
                shutil.rmtree(old)
                folders = [f for f in folders if f != old and not f.startswith(old + "/")]
                files = [f for f in files if not f.startswith(old + "/")]
                operations["delete-folder"] += 1
            else:
                old = random.choice(folders[1:])
                parent = random.choice([f for f in folders if f != old and not f.startswith(old + "/")])
                new = os.path.join(parent, f"m{counter}")
                os.rename(old, new)
                folders = [new + f[len(old):] if f == old or f.startswith(old + "/") else f for f in folders]
                files = [new + f[len(old):] if f.startswith(old + "/") else f for f in files]
                operations["rename-folder"] += 1
        except FileNotFoundError:
            pass
        time.sleep(1 / args.rate)
        if time.monotonic() >= next_checkpoint:
            failed |= not checkpoint()
            write_report(args, operations, checkpoints, failed, finished=False)
            if burst[0]:
                shutil.rmtree(burst[0])
                operations["burst-removed"] += 17_000
                burst[0] = None
            elif args.overflow_every and len(checkpoints) % args.overflow_every == 0:
                overflow()
            next_checkpoint = time.monotonic() + args.checkpoint
    failed |= not checkpoint()

    watcher.terminate()
    watcher.wait(timeout=10)
    shutil.rmtree(root, ignore_errors=True)

    write_report(args, operations, checkpoints, failed, finished=True)
    sys.exit(1 if failed else 0)


def write_report(args, operations, checkpoints, failed, finished):
    if args.report:
        with open(args.report, "w") as out:
            first, last = checkpoints[0], checkpoints[-1]
            out.write("# `uti watch` soak run\n\n")
            out.write(
                f"`tools/watch-soak.py --duration {args.duration:g} --rate {args.rate:g} --settle {args.settle:g} "
                f"--checkpoint {args.checkpoint:g} --seed {args.seed}` against `{args.uti}` "
                f"(`uti watch -r --json`), on {time.strftime('%Y-%m-%d')}.\n\n")
            out.write(
                "Operations at a steady rate in a watched tree: files created (0–5000 bytes), appended to, "
                "renamed within and across folders, deleted; folders created, moved with what they hold, and removed "
                "with what they hold; folders made, filled and renamed at once; every few checkpoints uti is stopped (SIGSTOP) while 17,000 files arrive, so the "
                "kernel's queue overflows and a rescan must find them, and they are removed after the next checkpoint. "
                "At each checkpoint the operations pause until everything has settled, and the tree the events "
                "describe must equal the tree on disk.\n\n")
            out.write(f"Operations: " + ", ".join(f"{k} {v}" for k, v in operations.items()) + ".\n\n")
            out.write(
                f"Result: {'every checkpoint matched' if not failed else 'MISMATCHES (see below)'}; "
                f"resident memory {first['rss_mib']} MiB at the first checkpoint, {last['rss_mib']} MiB at the last, "
                f"{max(c['rss_mib'] for c in checkpoints)} MiB at most.\n\n")
            out.write("| seconds | operations | events | rescans | items on disk | not reported | reported, not there "
                      "| errors | RSS MiB |\n")
            out.write("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
            for c in checkpoints:
                out.write(
                    f"| {c['seconds']} | {c['operations']} | {c['events']} | {c['rescans']} | {c['items']} "
                    f"| {c['unreported']} | {c['phantom']} | {c['errors']} | {c['rss_mib']} |\n")
            if not finished:
                out.write(f"\nThe run was still going when this was written ({checkpoints[-1]['seconds']} s).\n")


if __name__ == "__main__":
    main()
