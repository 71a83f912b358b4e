#!/usr/bin/env python3
"""Measures two builds of uti against the same peers, interleaved.

Usage: tools/bench/compare-builds.py BEFORE AFTER [--runs N] [--inbox-files N]

BEFORE and AFTER are checkouts of uti (a git worktree of an older commit,
and this one). Each is built as README installs it (its own
tools/build-release.sh) with its Benchmarks/ package. Every figure is then
taken in one run in which the two builds and the peer take turns (A B
peer A B peer ...), so a change in the machine's load touches all three
alike; each build keeps its compiled cache in a folder of its own
(UTI_CACHE_DIR), made and settled before timing. The load average is
printed beside each figure. Ratios are uti's time over the peer's (or,
for rates, uti's rate over GIO's).

Figures: `uti -b jpg` and `uti file --mime` of a PNG without extension
against `file --mime-type -b` and `gio info`; the first run with an
empty cache folder against `gio info`; peak memory of one lookup; N files
through `uti inbox` against a plain rename loop on /tmp and /dev/shm;
name guessing and MIME type -> type in process against GIO's
g_content_type_guess; the library's first lookup in a new process.
Prints a Markdown table.
"""
import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_inbox_tools():
    spec = importlib.util.spec_from_file_location("bench_inbox", os.path.join(ROOT, "tools", "bench-inbox.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def env_with_swift():
    env = dict(os.environ)
    if shutil.which("swift") is None and os.path.exists("/opt/swift/usr/bin/swift"):
        env["PATH"] = "/opt/swift/usr/bin:" + env["PATH"]
    return env


def build(checkout, out):
    """The release binary and the benchmark programs of `checkout`, copied to `out`."""
    env = env_with_swift()
    binary = subprocess.run([os.path.join(checkout, "tools", "build-release.sh")], env=env, check=True,
                            text=True, stdout=subprocess.PIPE).stdout.strip()
    subprocess.run(["swift", "build", "-c", "release", "--package-path", os.path.join(checkout, "Benchmarks")],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    os.makedirs(out, exist_ok=True)
    programs = {"uti": binary}
    for name in ("uti-bench", "uti-first-lookup"):
        programs[name] = os.path.join(checkout, "Benchmarks", ".build", "release", name)
    copies = {}
    for name, path in programs.items():
        copies[name] = os.path.join(out, name)
        shutil.copy2(path, copies[name])
    copies["cache"] = os.path.join(out, "cache")
    os.makedirs(copies["cache"], exist_ok=True)
    return copies


def load():
    return open("/proc/loadavg").read().split()[0]


def spawn(timer, runs, commands):
    """Median microseconds and peak KiB of each command, run in turn."""
    argv = [timer, "-n", str(runs), "-w", "5", "--"]
    for i, command in enumerate(commands):
        argv += ([":::"] if i else []) + command
    out = subprocess.run(argv, text=True, stdout=subprocess.PIPE, check=True).stdout
    return [(float(r.split("\t")[0]), int(r.split("\t")[3])) for r in out.strip().split("\n")]


def warm(build_, arguments):
    """Fills the build's cache and waits until its checksum record can be written."""
    env = dict(os.environ, UTI_CACHE_DIR=build_["cache"])
    subprocess.run([build_["uti"]] + arguments, env=env, stdout=subprocess.DEVNULL, check=True)
    time.sleep(3)
    subprocess.run([build_["uti"]] + arguments, env=env, stdout=subprocess.DEVNULL, check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--runs", type=int, default=201)
    parser.add_argument("--inbox-files", type=int, default=10_000)
    parser.add_argument("--inbox-runs", type=int, default=5)
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="uti-compare-")
    try:
        builds = {"before": build(os.path.abspath(args.before), os.path.join(work, "before")),
                  "after": build(os.path.abspath(args.after), os.path.join(work, "after"))}
        timer = os.path.join(work, "spawn-timer")
        subprocess.run(["cc", "-O2", "-o", timer, os.path.join(ROOT, "tools", "bench", "spawn-timer.c")], check=True)
        gio = os.path.join(work, "gio-bench")
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "gio-2.0"], text=True, stdout=subprocess.PIPE,
                               check=True).stdout.split()
        subprocess.run(["cc", "-O2", "-o", gio, os.path.join(ROOT, "tools", "bench", "gio-bench.c")] + flags,
                       check=True)
        plain = os.path.join(work, "plain-rename")
        subprocess.run(["cc", "-O2", "-o", plain, os.path.join(ROOT, "tools", "inbox", "plain-rename.c")], check=True)

        photo = os.path.join(work, "photo.jpg")
        with open(photo, "wb") as f:
            f.write(bytes([0xFF, 0xD8, 0xFF, 0xE0, 0, 16]) + b"JFIF\0" + bytes(4000))
        picture = os.path.join(work, "picture")
        with open(picture, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n" + bytes([0, 0, 0, 13]) + b"IHDR" + bytes(4000))
        names = os.path.join(work, "names.txt")
        with open(names, "w") as f:
            for line in open("/usr/share/mime/globs2", encoding="utf-8"):
                if line.startswith("#"):
                    continue
                glob = line.rstrip("\n").split(":")[2]
                if glob.startswith("*.") and not any(c in glob[2:] for c in "*?["):
                    f.write("photo" + glob[1:] + "\n")
                elif not any(c in glob for c in "*?["):
                    f.write(glob + "\n")
        for b in builds.values():
            warm(b, ["file", "--mime", picture])

        def uti(b, *arguments):
            return ["UTI_CACHE_DIR=" + builds[b]["cache"], builds[b]["uti"]] + list(arguments)

        rows = []

        def row(figure, peer, before, after, goal, unit="x", at=None, times=None):
            rows.append((figure, peer, before, after, goal, unit, at or load(), times))

        def ms(us):
            return "%.2f ms" % (us / 1000)

        # 1, 2: one-shot lookups.
        at = load()
        (file_jpg, file_rss), (b_jpg, b_rss), (a_jpg, a_rss), (file_png, _), (b_png, b_png_rss), (a_png, a_png_rss), \
            (gio_png, gio_rss) = spawn(timer, args.runs, [
                ["file", "--mime-type", "-b", photo], uti("before", "-b", "jpg"), uti("after", "-b", "jpg"),
                ["file", "--mime-type", "-b", picture], uti("before", "file", "--mime", picture),
                uti("after", "file", "--mime", picture), ["gio", "info", "-a", "standard::content-type", picture]])
        at = at + "–" + load()
        row("`uti -b jpg`", "`file --mime-type -b` " + ms(file_jpg), b_jpg / file_jpg, a_jpg / file_jpg, "<= 0.9x",
            at=at, times=(ms(b_jpg), ms(a_jpg)))
        row("`uti file --mime` on a PNG without extension", "`file --mime-type -b` " + ms(file_png), b_png / file_png,
            a_png / file_png, "<= 1.0x", at=at, times=(ms(b_png), ms(a_png)))
        row("same", "`gio info -a standard::content-type` " + ms(gio_png), b_png / gio_png, a_png / gio_png,
            "<= 0.5x", at=at, times=(ms(b_png), ms(a_png)))
        row("peak memory of `uti -b jpg` (MiB)", "`file` %.1f MiB" % (file_rss / 1024), b_rss / 1024, a_rss / 1024,
            "<= 4 MiB", unit="MiB", at=at)
        row("peak memory, content sniffed (MiB)", "`gio info` %.1f MiB" % (gio_rss / 1024), b_png_rss / 1024,
            a_png_rss / 1024, "", unit="MiB", at=at)

        # 3: the first run with an empty cache folder.
        at = load()
        cold = {"before": [], "after": [], "gio": []}
        for _ in range(15):
            for b in ("before", "after"):
                folder = tempfile.mkdtemp(dir=work)
                start = time.perf_counter()
                subprocess.run([builds[b]["uti"], "file", "--mime", picture], env=dict(os.environ, UTI_CACHE_DIR=folder),
                               stdout=subprocess.DEVNULL, check=True)
                cold[b].append(time.perf_counter() - start)
                shutil.rmtree(folder)
            start = time.perf_counter()
            subprocess.run(["gio", "info", "-a", "standard::content-type", picture], stdout=subprocess.DEVNULL,
                           check=True)
            cold["gio"].append(time.perf_counter() - start)
        c_before, c_after, c_gio = (statistics.median(cold[k]) for k in ("before", "after", "gio"))
        row("first run, empty cache folder (%.0f / %.0f ms)" % (c_before * 1e3, c_after * 1e3),
            "`gio info` %.1f ms" % (c_gio * 1e3), c_before / c_gio, c_after / c_gio, "<= 2x", at=at + "–" + load())

        # 5: the inbox.
        inbox = load_inbox_tools()
        for folder, goal in (("/tmp", "<= 1.3x"), ("/dev/shm", "<= 2.0x")):
            at = load()
            base = tempfile.mkdtemp(prefix="uti-compare-inbox-", dir=folder)
            times = {"plain": [], "before": [], "after": []}
            try:
                for _ in range(args.inbox_runs):
                    for kind in ("plain", "before", "after"):
                        documents = inbox.prepare(base, args.inbox_files, False)
                        if kind == "plain":
                            command = [plain, documents]
                        else:
                            command = ["env", "UTI_CACHE_DIR=" + builds[kind]["cache"], builds[kind]["uti"], "inbox",
                                       documents, "--settle", "0"]
                        times[kind].append(inbox.timed(command))
                        inbox.check(documents, args.inbox_files, False, kind == "plain")
            finally:
                shutil.rmtree(base, ignore_errors=True)
            p, b, a = (statistics.median(times[k]) for k in ("plain", "before", "after"))
            row("%d files through `uti inbox`, %s" % (args.inbox_files, folder),
                "plain rename loop %.1f ms" % (p * 1e3), b / p, a / p, goal, at=at + "–" + load(),
                times=("%.1f ms" % (b * 1e3), "%.1f ms" % (a * 1e3)))

        # 6, 7: rates in process.
        def rates(command, extra_env=None):
            out = subprocess.run(command, env=dict(os.environ, **(extra_env or {})), text=True,
                                 stdout=subprocess.PIPE, check=True).stdout
            return {k: float(v) for k, v in (line.split() for line in out.strip().split("\n"))}
        at = load()
        samples = {"before": [], "after": [], "gio": []}
        for _ in range(3):
            for b in ("before", "after"):
                samples[b].append(rates([builds[b]["uti-bench"], names, "/usr/share/mime/types"],
                                        {"UTI_CACHE_DIR": builds[b]["cache"]}))
            samples["gio"].append(rates([gio, "rates", names, "/usr/share/mime/types"]))
        guess = statistics.median(s["name_guesses_per_s"] for s in samples["gio"])
        for key, figure, goal in (("name_guesses_per_s", "name guessing in process", ">= 6x"),
                                  ("mime_lookups_per_s", "MIME type -> type in process", ">= 5x")):
            b = statistics.median(s[key] for s in samples["before"])
            a = statistics.median(s[key] for s in samples["after"])
            row("%s (%.1f / %.1f M/s)" % (figure, b / 1e6, a / 1e6),
                "GIO `g_content_type_guess` %.1f M/s" % (guess / 1e6), b / guess, a / guess, goal, at=at + "–" + load())

        # 8: the library's first lookup.
        at = load()
        first = {"before": [], "after": []}
        for b in ("before", "after"):
            subprocess.run([builds[b]["uti-first-lookup"]], env=dict(os.environ, UTI_CACHE_DIR=builds[b]["cache"]),
                           stdout=subprocess.DEVNULL, check=True)
        for _ in range(21):
            for b in ("before", "after"):
                out = subprocess.run([builds[b]["uti-first-lookup"]],
                                     env=dict(os.environ, UTI_CACHE_DIR=builds[b]["cache"]), text=True,
                                     stdout=subprocess.PIPE, check=True).stdout.split()
                if out[0] != "public.jpeg":
                    sys.exit("uti-first-lookup answered " + out[0])
                first[b].append(float(out[1]))
        row("library first lookup, warm cache (ms)", "", statistics.median(first["before"]) / 1e3,
            statistics.median(first["after"]) / 1e3, "<= 0.5 ms", unit="ms", at=at + "–" + load())
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print("| figure | peer | before | after | goal | load |")
    print("|---|---|---|---|---|---|")
    for figure, peer, before, after, goal, unit, at, times in rows:
        form = "%.2fx" if unit == "x" else "%.1f " + unit if unit == "MiB" else "%.2f " + unit
        b, a = form % before, form % after
        if times:
            b, a = b + " (" + times[0] + ")", a + " (" + times[1] + ")"
        print("| %s | %s | %s | %s | %s | %s |" % (figure, peer, b, a, goal, at))


if __name__ == "__main__":
    main()
