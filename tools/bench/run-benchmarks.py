#!/usr/bin/env python3
"""Times `uti` against file(1), GIO, Python's mimetypes and the floor (a
Swift program that prints one line, built -static-executable), and prints
one table; with --write, also records it in docs/benchmarks.md.

Builds what it measures: uti as README installs it (tools/build-release.sh,
the full system database, the compiled registry cache warm), the in-process
benchmark (Benchmarks/), a C program over GIO (tools/bench/gio-bench.c;
installs libglib2.0-dev with apt-get when missing), the process timer
(tools/bench/spawn-timer.c) and the floor. Whole-process figures are
medians of interleaved runs; ratios compare figures of the same run.

Usage: tools/bench/run-benchmarks.py [--runs N] [--write]
"""
import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, ".build", "bench")


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, **kw)


def build(env):
    os.makedirs(OUT, exist_ok=True)
    if subprocess.run(["pkg-config", "--exists", "gio-2.0"]).returncode != 0:
        prefix = [] if os.geteuid() == 0 else ["sudo"]
        # A new machine's package lists are empty: update them first.
        sh(prefix + ["apt-get", "update", "-qq"], stdout=subprocess.DEVNULL)
        sh(prefix + ["apt-get", "install", "-y", "-qq", "libglib2.0-dev"], stdout=subprocess.DEVNULL)
    uti = sh([os.path.join(ROOT, "tools", "build-release.sh")], env=env, stdout=subprocess.PIPE,
             stderr=subprocess.DEVNULL).stdout.strip()
    sh(["swift", "build", "-c", "release", "--package-path", os.path.join(ROOT, "Benchmarks")], env=env,
       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    bench = os.path.join(ROOT, "Benchmarks", ".build", "release", "uti-bench")
    gio = os.path.join(OUT, "gio-bench")
    flags = sh(["pkg-config", "--cflags", "--libs", "gio-2.0"], stdout=subprocess.PIPE).stdout.split()
    sh(["cc", "-O2", "-o", gio, os.path.join(ROOT, "tools", "bench", "gio-bench.c")] + flags)
    timer = os.path.join(OUT, "spawn-timer")
    sh(["cc", "-O2", "-o", timer, os.path.join(ROOT, "tools", "bench", "spawn-timer.c")])
    floor_src = os.path.join(OUT, "floor.swift")
    with open(floor_src, "w") as f:
        f.write('print("public.jpeg")\n')
    floor = os.path.join(OUT, "floor")
    sh(["swiftc", "-O", "-static-executable", floor_src, "-o", floor], env=env, stderr=subprocess.DEVNULL)
    return uti, bench, gio, timer, floor


def inputs(folder):
    """Names from every simple glob of the system database, its MIME types,
    a JPEG named photo.jpg, and a PNG without an extension (sniffed)."""
    names = []
    for line in open("/usr/share/mime/globs2", encoding="utf-8"):
        if line.startswith("#"):
            continue
        glob = line.rstrip("\n").split(":")[2]
        if glob.startswith("*.") and not any(c in glob[2:] for c in "*?["):
            names.append("photo" + glob[1:])
        elif not any(c in glob for c in "*?["):
            names.append(glob)
    paths = {"names": os.path.join(folder, "names.txt"), "mimes": "/usr/share/mime/types",
             "photo": os.path.join(folder, "photo.jpg"), "sniffed": os.path.join(folder, "picture"),
             "batch": os.path.join(folder, "batch.txt")}
    with open(paths["names"], "w") as f:
        f.write("\n".join(names) + "\n")
    with open(paths["batch"], "w") as f:
        for _ in range(1_000_000 // len(names) + 1):
            f.write("\n".join(names) + "\n")
    jpeg = bytes([0xFF, 0xD8, 0xFF, 0xE0, 0, 16]) + b"JFIF\0" + bytes(4000)
    with open(paths["photo"], "wb") as f:
        f.write(jpeg)
    png = b"\x89PNG\r\n\x1a\n" + bytes([0, 0, 0, 13]) + b"IHDR" + bytes(4000)
    with open(paths["sniffed"], "wb") as f:
        f.write(png)
    return paths, sum(1 for _ in open(paths["batch"]))


def spawn(timer, runs, commands):
    argv = [timer, "-n", str(runs), "--"]
    for i, c in enumerate(commands):
        argv += ([":::"] if i else []) + c
    out = subprocess.run(argv, text=True, stdout=subprocess.PIPE).stdout
    rows = [line.split("\t") for line in out.strip().split("\n")]
    return [(float(r[0]), int(r[3]), int(r[4])) for r in rows]


def rates(cmd):
    out = sh(cmd, stdout=subprocess.PIPE).stdout
    return {k: float(v) for k, v in (line.split() for line in out.strip().split("\n"))}


def python_rate(names):
    code = ("import mimetypes,sys,time\nnames=open(sys.argv[1]).read().split()\nmimetypes.init()\n"
            "n=0;s=time.perf_counter()\nwhile time.perf_counter()-s<1:\n"
            "  [mimetypes.guess_type(x) for x in names];n+=len(names)\nprint(n/(time.perf_counter()-s))")
    return float(sh([sys.executable, "-c", code, names], stdout=subprocess.PIPE).stdout)


def first_lookup(program, runs=21):
    """The library's first lookup in new processes (uti-first-lookup):
    medians of its in-process microseconds and peak memory (KiB), with the
    compiled cache warm and with the cache turned off (UTI_CACHE_DIR=)."""
    def measure(extra):
        env = dict(os.environ, **extra)
        subprocess.run([program], env=env, stdout=subprocess.DEVNULL, check=True)  # warm
        samples = []
        for _ in range(runs):
            out = subprocess.run([program], env=env, stdout=subprocess.PIPE, text=True, check=True).stdout
            identifier, micros, rss = out.split()
            if identifier != "public.jpeg":
                raise SystemExit(f"uti-first-lookup answered {identifier}")
            samples.append((float(micros), int(rss)))
        return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)
    return measure({}), measure({"UTI_CACHE_DIR": ""})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--write", action="store_true", help="record the table in docs/benchmarks.md")
    parser.add_argument("--first-lookup", action="store_true",
                        help="only build Benchmarks/ and print the library's first-lookup figures")
    args = parser.parse_args()
    env = dict(os.environ)
    if shutil.which("swift") is None:
        env["PATH"] = "/opt/swift/usr/bin:" + env["PATH"]
    first_program = os.path.join(ROOT, "Benchmarks", ".build", "release", "uti-first-lookup")
    if args.first_lookup:
        sh(["swift", "build", "-c", "release", "--package-path", os.path.join(ROOT, "Benchmarks")], env=env,
           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        (warm_us, warm_kib), (cold_us, cold_kib) = first_lookup(first_program)
        print(f"warm cache: {warm_us / 1000:.2f} ms, peak {warm_kib / 1024:.1f} MiB; "
              f"no cache: {cold_us / 1000:.2f} ms, peak {cold_kib / 1024:.1f} MiB")
        return
    uti, bench, gio, timer, floor = build(env)
    folder = tempfile.mkdtemp(prefix="uti-bench-")
    paths, batch_count = inputs(folder)
    subprocess.run([uti, "jpg"], stdout=subprocess.DEVNULL)  # the compiled registry is warm, as after any first run

    py = [sys.executable, "-c", "import mimetypes,sys;print(mimetypes.guess_type(sys.argv[1])[0])", paths["photo"]]
    one_shot = spawn(timer, args.runs, [
        ["file", "--mime-type", "-b", paths["photo"]],
        ["gio", "info", "-a", "standard::content-type", paths["photo"]],
        [gio, "guess", paths["photo"]],
        [floor],
        [uti, "jpg"],
        [uti, "file", paths["photo"]],
        ["file", "--mime-type", "-b", paths["sniffed"]],
        ["gio", "info", "-a", "standard::content-type", paths["sniffed"]],
        [uti, "file", paths["sniffed"]],
    ])
    python_one = spawn(timer, max(20, args.runs // 10), [py])[0]
    (file_t, _, _), (gioinfo_t, _, _), (gioc_t, _, _), (floor_t, _, _), (jpg_t, jpg_rss, _), (name_t, name_rss, _), \
        (file_s, _, _), (gio_s, _, _), (uti_s, sniff_rss, _) = one_shot

    batch_times = []
    for _ in range(3):
        with open(paths["batch"]) as f:
            start = time.perf_counter()
            subprocess.run([uti, "batch", "--file"], stdin=f, stdout=subprocess.DEVNULL, check=True)
            batch_times.append(time.perf_counter() - start)
    batch_rate = batch_count / statistics.median(batch_times)

    (warm_us, warm_kib), (cold_us, cold_kib) = first_lookup(first_program)
    ours = rates([bench, paths["names"], paths["mimes"]])
    theirs = rates([gio, "rates", paths["names"], paths["mimes"]])
    py_rate = python_rate(paths["names"])
    shutil.rmtree(folder)

    def ms(t):
        return f"{t / 1000:.2f} ms"

    def m(r):
        return f"{r / 1e6:.2f} M/s"

    rows = [
        ("One-shot `uti jpg`", ms(jpg_t), f"file {ms(file_t)} · floor {ms(floor_t)}",
         f"{jpg_t / file_t:.2f}x file · {jpg_t / floor_t:.2f}x floor", "≤ 0.9x file, ≤ 1.3x floor"),
        ("One-shot `uti file photo.jpg` (name decides)", ms(name_t), f"file {ms(file_t)} · floor {ms(floor_t)}",
         f"{name_t / file_t:.2f}x file · {name_t / floor_t:.2f}x floor", "≤ 0.9x file, ≤ 1.3x floor"),
        ("Peers, one-shot photo.jpg", "", f"gio info {ms(gioinfo_t)} · C over g_content_type_guess {ms(gioc_t)} · "
         f"Python mimetypes {ms(python_one[0])}", "", ""),
        ("`uti file picture` (content sniffed)", ms(uti_s), f"gio info {ms(gio_s)} · file {ms(file_s)}",
         f"{uti_s / gio_s:.2f}x gio info", "≤ 1.0x gio info"),
        ("Batch `uti batch --file` (stdin)", m(batch_rate), f"{batch_count:,} names", "", "≥ 3 M/s"),
        ("Extension → type, in process", m(ours["extension_lookups_per_s"]),
         f"GIO g_content_type_guess {m(theirs['name_guesses_per_s'])}",
         f"{ours['extension_lookups_per_s'] / theirs['name_guesses_per_s']:.1f}x GIO guess", "≥ 4x GIO guess"),
        ("MIME type → type, in process", m(ours["mime_lookups_per_s"]),
         f"GIO g_content_type_guess {m(theirs['name_guesses_per_s'])}",
         f"{ours['mime_lookups_per_s'] / theirs['name_guesses_per_s']:.1f}x GIO guess", "≥ 4x GIO guess"),
        ("Conformance checks, in process", m(ours["conformance_checks_per_s"]),
         f"GIO g_content_type_is_a {m(theirs['is_a_checks_per_s'])}",
         f"{ours['conformance_checks_per_s'] / theirs['is_a_checks_per_s']:.1f}x GIO", "≥ 8x GIO"),
        ("Name guessing, in process", m(ours["name_guesses_per_s"]),
         f"GIO g_content_type_guess {m(theirs['name_guesses_per_s'])} · Python guess_type {m(py_rate)}",
         f"{ours['name_guesses_per_s'] / theirs['name_guesses_per_s']:.1f}x GIO", "≥ 5x GIO"),
        ("Registry ready (compiled cache, in process, mapped)", f"{ours['registry_ready_us']:.0f} µs",
         f"{int(ours['registry_types'])} types · read into memory {ours['registry_ready_copy_us']:.0f} µs", "",
         "≤ 50 µs"),
        ("Peak memory, one lookup", f"{max(jpg_rss, name_rss) / 1024:.1f} MiB", f"sniffing {sniff_rss / 1024:.1f} MiB",
         "", "≤ 16 MiB"),
        ("Library's first lookup, new process (`UTType(filenameExtension:)`, warm cache)",
         f"{warm_us / 1000:.2f} ms · peak {warm_kib / 1024:.1f} MiB",
         f"cache off {cold_us / 1000:.2f} ms · peak {cold_kib / 1024:.1f} MiB; CLI peak {jpg_rss / 1024:.1f} MiB",
         f"{cold_us / warm_us:.0f}x faster than no cache", "a few ms, ≤ the CLI's memory"),
    ]
    header = "| Measure | uti | Peers (same run) | Ratio | Target |\n|---|---|---|---|---|\n"
    table = header + "\n".join("| " + " | ".join(r) + " |" for r in rows) + "\n"
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown CPU")
    machine = (f"{platform.platform()}, {cpu}, {os.cpu_count()} cores; {args.runs} interleaved runs per one-shot "
               f"figure (medians); {time.strftime('%Y-%m-%d')}")
    print(table)
    print(machine)
    if args.write:
        os.makedirs(os.path.join(ROOT, "docs"), exist_ok=True)
        path = os.path.join(ROOT, "docs", "benchmarks.md")
        # Written analysis below the table ("## " sections) is kept.
        kept = ""
        if os.path.exists(path):
            text = open(path, encoding="utf-8").read()
            at = text.find("\n## ")
            kept = text[at:] if at >= 0 else ""
        with open(path, "w") as f:
            f.write("# Benchmarks\n\nMade by `tools/bench/run-benchmarks.py --write` (see README, "
                    "\"Development\").\n\nMachine: " + machine + ".\n\n" + table + kept)


if __name__ == "__main__":
    main()
