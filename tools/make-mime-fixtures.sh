#!/bin/sh
# Compiles the shared-mime-info test package with update-mime-database and
# keeps what the tests read (mime.cache, types, treemagic and the per-type
# XML files that carry the comments) in
# Tests/SharedMIMEInfoTests/Fixtures/compiled/mime and
# Tests/UniformTypesTests/Fixtures/mime.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
fixtures="$root/Tests/SharedMIMEInfoTests/Fixtures"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/mime/packages"
cp "$fixtures/system/mime/packages/uti-test.xml" "$work/mime/packages/"
update-mime-database "$work/mime" 2>/dev/null
for out in "$fixtures/compiled/mime" "$root/Tests/UniformTypesTests/Fixtures/mime"; do
    rm -rf "$out"
    mkdir -p "$out"
    cp "$work/mime/mime.cache" "$work/mime/types" "$work/mime/treemagic" "$out/"
    for media in application image text x-content; do
        cp -r "$work/mime/$media" "$out/"
    done
    echo "wrote $out"
done
