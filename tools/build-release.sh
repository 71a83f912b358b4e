#!/bin/sh
# Builds the release `uti` as one fully static executable (Swift runtime,
# libxml2, zlib and lzma linked in; ICU left out, see below), the build
# README tells people to install: it starts fastest, since nothing is loaded
# or relocated at start. Prints the path of the binary, .build/static/bin/uti
# (stripped; its debug information is in uti.debug beside it). Installs
# libxml2-dev (which brings the static libraries and ICU's headers) with
# apt-get when it is missing.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
if ! pkg-config --exists libxml-2.0 2>/dev/null || [ ! -e "$(pkg-config --variable=libdir libxml-2.0)/libxml2.a" ]; then
    # A new machine's package lists are empty: update them first.
    if [ "$(id -u)" = 0 ]; then apt-get update -qq >/dev/null && apt-get install -y -qq libxml2-dev >/dev/null
    else sudo apt-get update -qq >/dev/null && sudo apt-get install -y -qq libxml2-dev >/dev/null; fi \
    || { echo "build-release.sh: cannot install libxml2-dev (apt-get failed); nothing was built" >&2; exit 1; }
fi
command -v swift >/dev/null 2>&1 || PATH=/opt/swift/usr/bin:$PATH
log="$root/.build/static/build.log"
mkdir -p "$root/.build/static"
# libxml2's own dependencies, in the order a static link needs them, except
# ICU: libxml2 asks ICU for an encoding only when glibc's iconv has none, and
# linking it adds 35 MB. no-icu-converters.c stands in for the few ICU
# functions libxml2 calls, and says every such encoding is unsupported.
libs=""
icu=no
for lib in $(pkg-config --static --libs-only-l libxml-2.0) -lstdc++; do
    case "$lib" in
        -lxml2) ;;
        -licu*) icu=yes ;;
        *) libs="$libs -Xlinker $lib" ;;
    esac
done
if [ "$icu" = yes ]; then
    stand_in="$root/.build/static/no-icu-converters.o"
    # shellcheck disable=SC2046
    if ! cc -c -O2 $(pkg-config --cflags icu-uc 2>/dev/null) "$root/tools/release/no-icu-converters.c" -o "$stand_in" 2>"$log"; then
        cat "$log" >&2
        echo "build-release.sh: cannot compile tools/release/no-icu-converters.c (ICU's headers come with libxml2-dev); nothing was built" >&2
        exit 1
    fi
    libs="$libs -Xlinker $stand_in"
fi
# Concrete generic types get their metadata from accessor functions rather
# than by demangling their names at run time, which checks each generic
# requirement by scanning every protocol conformance in the binary: a
# lookup runs about a quarter fewer instructions (callgrind, `uti jpg`).
# Each function gets a section of its own, and lld (shipped with Swift)
# places the functions everyday commands run together at the start of the
# code, in the order tools/release/startup-order.txt lists them
# (tools/release/make-startup-order.sh writes it): a lookup touches about
# half the code pages it would otherwise. A function the list does not
# name is placed as before.
# SwiftPM does not track the list, so the link is redone every time (a second).
rm -f "$root/.build/static/release/uti"
# shellcheck disable=SC2086
if ! swift build -c release --product uti --package-path "$root" --scratch-path "$root/.build/static" \
    -Xswiftc -static-executable \
    -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors \
    -Xswiftc -Xfrontend -Xswiftc -function-sections -Xswiftc -use-ld=lld \
    -Xlinker --symbol-ordering-file="$root/tools/release/startup-order.txt" -Xlinker --no-warn-symbol-ordering \
    $libs >"$log" 2>&1; then
    cat "$log" >&2
    echo "build-release.sh: the build failed (log: $log)" >&2
    exit 1
fi
# The static link warns that glibc's user, group and host lookups, dlopen
# and mktemp need glibc's own shared libraries at run time; docs/install.md
# ("Binary size") says why uti is not affected. Anything else is shown.
notes=$(grep -c "in statically linked applications requires at runtime\|the use of .mktemp' is dangerous" "$log" || true)
grep "warning:" "$log" | grep -v "in statically linked applications requires at runtime\|the use of .mktemp' is dangerous" >&2 || true
[ "$notes" = 0 ] || echo "build-release.sh: $notes expected static-link notes (glibc lookups, dlopen, mktemp) left in $log" >&2
# The installed binary is a stripped copy, .build/static/bin/uti; its debug
# information goes to uti.debug beside it, linked by .gnu_debuglink so gdb
# finds it. The linker's own output stays as it is, for the next build.
linked="$root/.build/static/release/uti"
bin="$root/.build/static/bin/uti"
work=$(mktemp -d "$root/.build/static/strip.XXXXXX")
objcopy --only-keep-debug "$linked" "$work/uti.debug"
objcopy --strip-all --add-gnu-debuglink="$work/uti.debug" "$linked" "$work/uti"
mkdir -p "$root/.build/static/bin"
mv "$work/uti.debug" "$bin.debug"
mv "$work/uti" "$bin"
rmdir "$work"
echo "$bin"
