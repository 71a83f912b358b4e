#!/bin/sh
# Builds the release `uti` as one fully static executable (Swift runtime,
# libxml2 and what it needs linked in), the build README tells people to
# install: it starts fastest, since nothing is loaded or relocated at start.
# Prints the path of the binary. Installs libxml2-dev (which brings the
# static ICU, zlib and lzma libraries) with apt-get when it is missing.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
if ! pkg-config --exists libxml-2.0 2>/dev/null || [ ! -e "$(pkg-config --variable=libdir libxml-2.0)/libxml2.a" ]; then
    # A new machine's package lists are empty: update them first.
    if [ "$(id -u)" = 0 ]; then apt-get update -qq >/dev/null && apt-get install -y -qq libxml2-dev >/dev/null
    else sudo apt-get update -qq >/dev/null && sudo apt-get install -y -qq libxml2-dev >/dev/null; fi \
    || { echo "build-release.sh: cannot install libxml2-dev (apt-get failed); nothing was built" >&2; exit 1; }
fi
command -v swift >/dev/null 2>&1 || PATH=/opt/swift/usr/bin:$PATH
# libxml2's own dependencies, in the order a static link needs them.
libs=""
for lib in $(pkg-config --static --libs-only-l libxml-2.0) -lstdc++; do
    [ "$lib" = -lxml2 ] || libs="$libs -Xlinker $lib"
done
# shellcheck disable=SC2086
swift build -c release --package-path "$root" --scratch-path "$root/.build/static" \
    -Xswiftc -static-executable $libs >&2
echo "$root/.build/static/release/uti"
