#!/usr/bin/env python3
"""Benchmarks of `uti watch`: how soon a settled file is reported, and a
burst of files that overflows the kernel's event queue.

Latency: one file at a time is written (1 KiB, closed), and the time from
the close to its `added` line on uti's standard output, minus the settle
interval, is measured (target: at most 50 ms). Burst: while uti is
stopped (SIGSTOP), N files are made in the watched tree (100 folders), so
the kernel's queue overflows; after SIGCONT every file must be reported
added exactly once (after a rescan). Peak memory is uti's VmHWM.

Usage: tools/bench/watch-bench.py [--uti BIN] [--files 100000] [--samples 40]
"""
import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Watch:
    def __init__(self, uti, arguments):
        self.process = subprocess.Popen(
            [uti, "watch", "--json"] + arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env={**os.environ, "UTI_CACHE_DIR": os.environ.get("UTI_CACHE_DIR", "")})
        line = self.process.stderr.readline().decode()
        if not line.startswith("uti: watching"):
            sys.exit(f"uti watch did not start: {line}")
        self.events = []
        self.condition = threading.Condition()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.process.stdout:
            arrived = time.monotonic()
            with self.condition:
                self.events.append((arrived, json.loads(line)))
                self.condition.notify_all()

    def wait_for(self, count, timeout):
        end = time.monotonic() + timeout
        with self.condition:
            while len(self.events) < count and time.monotonic() < end:
                self.condition.wait(end - time.monotonic())
            return len(self.events) >= count

    def peak_mib(self):
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return 0

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)


def latency(uti, settle, samples):
    folder = tempfile.mkdtemp(prefix="uti-watch-latency-")
    watch = Watch(uti, ["--settle", str(settle), folder])
    delays = []
    for n in range(samples):
        path = os.path.join(folder, f"f{n}.txt")
        with open(path, "wb") as f:
            f.write(b"x" * 1024)
        closed = time.monotonic()
        end = closed + settle + 10
        arrived = None
        while arrived is None and time.monotonic() < end:
            watch.wait_for(len(watch.events) + 1, 0.05)
            with watch.condition:
                # With --settle 0, a file may be reported the moment it is made,
                # before its writer has it open; the event that counts is the last.
                times = [t for t, e in watch.events if e["path"] == path]
            if times and time.monotonic() - times[-1] > 0.2:
                arrived = times[-1]
        if arrived is None:
            sys.exit(f"no event for {path}")
        delays.append(max(arrived - closed - settle, 0) * 1000)
    watch.stop()
    shutil.rmtree(folder)
    delays.sort()
    return {
        "settle": settle, "samples": samples, "median_ms": statistics.median(delays),
        "p95_ms": delays[int(len(delays) * 0.95) - 1], "max_ms": delays[-1],
    }


def burst(uti, files, settle):
    folder = tempfile.mkdtemp(prefix="uti-watch-burst-")
    folders = 100
    for d in range(folders):
        os.mkdir(os.path.join(folder, f"d{d}"))
    watch = Watch(uti, ["-r", "--settle", str(settle), folder])
    os.kill(watch.process.pid, signal.SIGSTOP)
    made = time.monotonic()
    for n in range(files):
        fd = os.open(os.path.join(folder, f"d{n % folders}", f"f{n}"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.close(fd)
    made = time.monotonic() - made
    resumed = time.monotonic()
    os.kill(watch.process.pid, signal.SIGCONT)
    watch.wait_for(files + 1, 600)
    time.sleep(settle + 2)
    last = max(t for t, e in watch.events if e["event"] == "added") if watch.events else resumed
    peak = watch.peak_mib()
    watch.stop()
    added = [e["path"] for _, e in watch.events if e["event"] == "added"]
    rescans = sum(1 for _, e in watch.events if e["event"] == "rescan")
    other = sum(1 for _, e in watch.events if e["event"] not in ("added", "rescan"))
    shutil.rmtree(folder)
    return {
        "files": files, "added": len(added), "distinct": len(set(added)), "rescans": rescans, "other": other,
        "make_s": made, "report_s": last - resumed, "peak_mib": peak,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--uti", default=os.path.join(ROOT, ".build", "release", "uti"))
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=40)
    args = parser.parse_args()
    ok = True
    for settle in (0.5, 0):
        row = latency(args.uti, settle, args.samples)
        print(json.dumps(row), flush=True)
        ok &= row["max_ms"] <= 50
    row = burst(args.uti, args.files, 0.5)
    print(json.dumps(row), flush=True)
    ok &= row["added"] == row["distinct"] == args.files and row["rescans"] >= 1 and row["other"] == 0
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
