#!/bin/sh
# Formats the Swift sources with swift-format and the repository's
# .swift-format, or with --check only lints them (exit 1 on any finding).
# Generated code (Sources/UniformTypes/Generated, the DocC articles' code in
# Tests/DocumentationTests/Articles) is left as its generator writes it.
#
#   tools/format.sh            rewrite the files in place
#   tools/format.sh --check    lint; what .ci/run runs
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
command -v swift-format >/dev/null 2>&1 || PATH=/opt/swift/usr/bin:$PATH
cd "$root"
files=$(git ls-files --cached --others --exclude-standard '*.swift' | grep -v -e '^Sources/UniformTypes/Generated/' -e '^Tests/DocumentationTests/Articles/')
case "${1:-}" in
    --check)
        # shellcheck disable=SC2086
        swift-format lint --strict --parallel $files ;;
    "")
        # shellcheck disable=SC2086
        swift-format format --in-place --parallel $files ;;
    *) echo "format.sh: unknown argument \"$1\" (use --check or nothing)" >&2; exit 2 ;;
esac
