#!/bin/sh
# Builds the GIO reference helpers into .build/tools (gio-content-type, gio-associations)
# and prints the path of gio-content-type.
# Installs libglib2.0-dev with apt-get when GIO's headers are missing.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out="$root/.build/tools"
mkdir -p "$out"
if ! pkg-config --exists gio-2.0 2>/dev/null; then
    # A new machine's package lists are empty: update them first.
    if [ "$(id -u)" = 0 ]; then apt-get update -qq >/dev/null && apt-get install -y -qq libglib2.0-dev >/dev/null
    else sudo apt-get update -qq >/dev/null && sudo apt-get install -y -qq libglib2.0-dev >/dev/null; fi
fi
cc -O2 -o "$out/gio-content-type" "$root/tools/gio/gio-content-type.c" $(pkg-config --cflags --libs gio-2.0)
cc -O2 -o "$out/gio-associations" "$root/tools/gio/gio-associations.c" $(pkg-config --cflags --libs gio-2.0 gio-unix-2.0)
echo "$out/gio-content-type"
