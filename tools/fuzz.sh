#!/usr/bin/env bash
# Builds one of the libFuzzer drivers in Fuzz/ and runs it.
#
#   tools/fuzz.sh DRIVER [libFuzzer options…]   e.g. tools/fuzz.sh xml-plist -max_total_time=1800
#   tools/fuzz.sh --list                        the drivers
#   tools/fuzz.sh --report                      run time and executions per driver, from every run so far
#
# Work lives in .build-fuzz/: seeds/DRIVER (made once from this machine's
# files by tools/fuzz/make-seeds.py), corpus/DRIVER (what libFuzzer keeps),
# crashes/DRIVER (crashing, leaking, slow and out-of-memory inputs: every run
# stops an input past 10 s or 512 MB, low enough to catch amplification),
# logs/, and runs.tsv (one line per run: start, driver, seconds, executions,
# status). Exits with libFuzzer's status: 0 when the run ended with no
# finding.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$root/.build-fuzz
drivers=(xml-plist binary-plist mime-package mime-cache mime-text desktop-entry magic dynamic-identifier registry-image)

if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
  export PATH=/opt/swift/usr/bin:$PATH
fi

usage() { echo "usage: tools/fuzz.sh {$(IFS='|'; echo "${drivers[*]}")} [libFuzzer options…] | --list | --report" >&2; exit 64; }

case "${1:-}" in
  --list) printf '%s\n' "${drivers[@]}"; exit 0 ;;
  --report)
    [ -f "$work/runs.tsv" ] || { echo "no runs yet ($work/runs.tsv)" >&2; exit 1; }
    printf "%-20s %5s %10s %14s %9s\n" driver runs seconds executions findings
    awk -F'\t' '{ s[$2] += $3; e[$2] += $4; n[$2]++; if ($5 != 0) f[$2]++ }
      END { for (d in s) printf "%-20s %5d %10d %14d %9d\n", d, n[d], s[d], e[d], f[d] }' "$work/runs.tsv" | sort
    exit 0 ;;
  ""|-*) usage ;;
esac
driver=$1; shift
printf '%s\n' "${drivers[@]}" | grep -qx -- "$driver" || usage

mkdir -p "$work"
# SwiftPM plans the files of a path dependency once: a source file added to
# the project since the last build is seen only when the plan is made anew,
# which touching the fuzz package's manifest brings about.
listing=$(find Sources Fuzz/Sources -type f | LC_ALL=C sort)
[ "$listing" = "$(cat "$work/sources.list" 2>/dev/null)" ] || touch Fuzz/Package.swift
# The driver, the project's modules included, is built with libFuzzer's
# coverage and AddressSanitizer (only fuzz drivers link with libFuzzer).
swift build --package-path Fuzz --build-path "$work" --product "fuzz-$driver" \
  -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address \
  >"$work/build.log" 2>&1 || { grep -v 'ld.gold: warning' "$work/build.log" | tail -40 >&2; exit 70; }
printf '%s\n' "$listing" >"$work/sources.list"
binary=$work/debug/fuzz-$driver

seeds=$work/seeds/$driver
if [ ! -d "$seeds" ]; then
  if [ "$driver" = registry-image ]; then
    mkdir -p "$seeds.tmp"
    "$binary" --write-seeds "$seeds.tmp" "$root"
  else
    python3 tools/fuzz/make-seeds.py "$driver" "$seeds.tmp"
  fi
  mv "$seeds.tmp" "$seeds"
fi
mkdir -p "$work/corpus/$driver" "$work/crashes/$driver" "$work/logs"

# Swift's backtracer would otherwise hold every crash for a long time.
export SWIFT_BACKTRACE=enable=no
# AddressSanitizer's quarantine (256 MB by default) would take half of the
# 512 MB an input may use; 32 MB still catches uses after free.
export ASAN_OPTIONS="quarantine_size_mb=32${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
log=$work/logs/$driver-$(date +%Y%m%d-%H%M%S).log
start=$(date +%s)
set +e
"$binary" -timeout=10 -rss_limit_mb=512 -malloc_limit_mb=512 -print_final_stats=1 \
  -artifact_prefix="$work/crashes/$driver/" "$@" "$work/corpus/$driver" "$seeds" 2>&1 | tee "$log" | grep -E '^(#[0-9]+ +(INITED|DONE|pulse))|ERROR|SUMMARY|Test unit written|^Done' 
status=${PIPESTATUS[0]}
set -e
seconds=$(( $(date +%s) - start ))
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
printf '%s\t%s\t%s\t%s\t%s\n' "$(date -d @"$start" +%FT%T)" "$driver" "$seconds" "${execs:-0}" "$status" >>"$work/runs.tsv"
echo "fuzz-$driver: ${seconds}s, ${execs:-0} executions, status $status (log: $log)"
exit "$status"
