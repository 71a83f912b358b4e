#!/bin/sh
# Writes docs/uti.1, the manual page of uti, from the command-line parser
# (swift-argument-parser's generate-manual plugin; it builds uti in release
# mode first), finished by tools/finish-manual.py (paragraphs, and EXIT STATUS,
# ENVIRONMENT and FILES from the tables of docs/reference.md). ManualPageTests
# fails when a command or option is missing or the page renders with a warning.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
command -v swift >/dev/null 2>&1 || PATH=/opt/swift/usr/bin:$PATH
cd "$root"
swift package --allow-writing-to-package-directory generate-manual --date "$(date +%Y-%m-%d)" \
    --authors "the uti authors" >&2
python3 tools/finish-manual.py .build/plugins/GenerateManual/outputs/uti/uti.1 > docs/uti.1
echo "docs/uti.1"
