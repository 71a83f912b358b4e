#!/bin/sh
# Builds the DocC documentation of the library products offline and fails
# on any DocC warning, or when a public symbol has no summary.
#
#   tools/check-docs.sh [MODULE...]                check every library product (or those named);
#                                                  exit 1 on a finding
#   tools/check-docs.sh --output DIR [MODULE...]   also keep the rendered archives in DIR/MODULE.doccarchive
#
# Symbol graphs come from a build in .build/docs (its own scratch folder, so
# it never waits for or disturbs another build); `docc convert` renders each
# module's catalog (Sources/MODULE/MODULE.docc, or the symbols alone) with
# --warnings-as-errors and reports documentation coverage.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
command -v docc >/dev/null 2>&1 || PATH=/opt/swift/usr/bin:$PATH
modules="UniformTypeIdentifiers UniformTypes PropertyLists SharedMIMEInfo InboxProcessing FolderWatching DocumentHandlers"
output=""
if [ "${1:-}" = --output ]; then
    [ $# -ge 2 ] || { echo "check-docs.sh: --output needs a folder" >&2; exit 2; }
    output=$2
    shift 2
fi
if [ $# -gt 0 ]; then
    for module in "$@"; do
        case " $modules " in
            *" $module "*) ;;
            *) echo "check-docs.sh: \"$module\" is not a library product ($modules)" >&2; exit 2 ;;
        esac
    done
    modules="$*"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
graphs="$work/graphs"
mkdir -p "$graphs"
for module in DocumentHandlers UniformTypeIdentifiers InboxProcessing FolderWatching; do
    if ! swift build --package-path "$root" --scratch-path "$root/.build/docs" --target "$module" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" \
        -Xswiftc -Xfrontend -Xswiftc -symbol-graph-skip-synthesized-members >"$work/build.log" 2>&1; then
        cat "$work/build.log" >&2
        echo "check-docs.sh: cannot build $module" >&2
        exit 2
    fi
done
status=0
for module in $modules; do
    mkdir -p "$work/$module"
    cp "$graphs/$module.symbols.json" "$work/$module/"
    catalog="$root/Sources/$module/$module.docc"
    [ -d "$catalog" ] || { catalog="$work/$module.docc"; mkdir -p "$catalog"; }
    archive="$work/$module.doccarchive"
    if ! docc convert "$catalog" --additional-symbol-graph-dir "$work/$module" --output-path "$archive" \
        --fallback-display-name "$module" --fallback-bundle-identifier "uti.$module" --warnings-as-errors \
        --experimental-documentation-coverage --coverage-summary-level brief >"$work/$module.log" 2>&1; then
        echo "$module: DocC reports problems:" >&2
        grep -E "warning|error" "$work/$module.log" | sed 's/^/  /' >&2
        status=1
    fi
    # The coverage table's first column is the share of symbols with a summary.
    missing=$(awk -F'|' '/^(Types|Members|Globals)/ { split($2, a, "[()/]"); if (a[2] != a[3]) print $1 ":" a[2] "/" a[3] }' \
        "$work/$module.log" | tr -s ' ' | tr '\n' ' ')
    if [ -n "$missing" ]; then
        echo "$module: public symbols without a summary (with summary/all): $missing" >&2
        status=1
    fi
    if [ -n "$output" ]; then mkdir -p "$output" && rm -rf "$output/$module.doccarchive" && mv "$archive" "$output/"; fi
done
[ $status -eq 0 ] && echo "DocC: $modules build without warnings, every public symbol summarized"
exit $status
