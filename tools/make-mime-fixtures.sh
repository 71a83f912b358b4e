#!/bin/sh
# Compiles the shared-mime-info test package with update-mime-database and
# keeps what the tests read: mime.cache, types and treemagic, in
# Tests/SharedMIMEInfoTests/Fixtures/compiled/mime.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
fixtures="$root/Tests/SharedMIMEInfoTests/Fixtures"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/mime/packages"
cp "$fixtures/system/mime/packages/uti-test.xml" "$work/mime/packages/"
update-mime-database "$work/mime" 2>/dev/null
out="$fixtures/compiled/mime"
rm -rf "$out"
mkdir -p "$out"
cp "$work/mime/mime.cache" "$work/mime/types" "$work/mime/treemagic" "$out/"
mkdir -p "$out/application"
cp "$work/mime/application/x-uti-string.xml" "$out/application/"
echo "wrote $out"
