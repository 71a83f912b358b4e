#!/bin/sh
# Checks the public API of the library products against the last release's,
# kept in api/VERSION/ as swift-api-digester dumps, so a change that would
# break a library user's code is seen before it lands.
#
#   tools/check-api.sh                   compare this checkout with api/<newest>/; exit 1 on a breaking
#                                        change that api/allowed-breakages.txt does not list
#   tools/check-api.sh --record VERSION  write api/VERSION/ from the git tag VERSION (built in a
#                                        temporary worktree); run it when a version is tagged
#
# Each line of api/allowed-breakages.txt is one message as the digester
# prints it; CHANGELOG.md names each such change.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
command -v swift-api-digester >/dev/null 2>&1 || PATH=/opt/swift/usr/bin:$PATH
modules="UniformTypeIdentifiers UniformTypes PropertyLists SharedMIMEInfo InboxProcessing DocumentHandlers"

# dump CHECKOUT OUTDIR: builds CHECKOUT (debug; nothing when it is built) and
# writes one MODULE.json per module.
dump() {
    (cd "$1" && swift build >"$2/build.log" 2>&1) || { cat "$2/build.log" >&2; echo "check-api.sh: cannot build $1" >&2; exit 2; }
    rm -f "$2/build.log"
    build=$(cd "$1" && swift build --show-bin-path)
    for module in $modules; do
        swift-api-digester -dump-sdk -module "$module" -o "$2/$module.json" -abort-on-module-fail \
            -I "$build/Modules" -I "$1/Sources/CLinuxCalls/include" -I "$1/Sources/CXMLShim/include" \
            -Xcc -fmodule-map-file="$build/CLinuxCalls.build/module.modulemap" \
            -Xcc -fmodule-map-file="$build/CXMLShim.build/module.modulemap" \
            || { echo "check-api.sh: cannot read the API of $module in $1" >&2; exit 2; }
    done
}

case "${1:-}" in
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
if [ "${1:-}" = --record ]; then
    [ $# -ge 2 ] || { echo "check-api.sh: --record needs a version tag" >&2; exit 2; }
    [ $# -eq 2 ] || { echo "check-api.sh: --record takes one version tag, not \"$*\"" >&2; exit 2; }
    version=$2
    git -C "$root" rev-parse -q --verify "refs/tags/$version" >/dev/null \
        || { echo "check-api.sh: no tag $version" >&2; exit 2; }
    work=$(mktemp -d)
    trap 'git -C "$root" worktree remove --force "$work/checkout" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
    git -C "$root" worktree add -q --detach "$work/checkout" "$version"
    mkdir -p "$work/api"
    dump "$work/checkout" "$work/api"
    mkdir -p "$root/api/$version"
    # The dumps record the digester's arguments; the temporary folder in them
    # becomes WORK, so recording the same version again gives the same files.
    escaped=$(printf '%s' "$work" | sed 's|/|\\\\/|g')
    for module in $modules; do
        sed "s|$escaped|WORK|g" "$work/api/$module.json" > "$root/api/$version/$module.json"
    done
    echo "api/$version: $modules"
    exit 0
fi
[ $# -eq 0 ] || { echo "check-api.sh: unknown argument \"$1\" (see the comment at the top)" >&2; exit 2; }

baseline=$(ls -d "$root"/api/*/ 2>/dev/null | sed 's:/$::' | sort -V | tail -1)
[ -n "$baseline" ] || { echo "check-api.sh: no recorded release in api/" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dump "$root" "$work"
allowed="$root/api/allowed-breakages.txt"
[ -f "$allowed" ] || : >"$work/allowed.txt"
[ -f "$allowed" ] && cp "$allowed" "$work/allowed.txt"
status=0
for module in $modules; do
    # The digester writes a copy of the allowlist to TMPDIR and leaves it: kept in $work.
    TMPDIR="$work" swift-api-digester -diagnose-sdk -input-paths "$baseline/$module.json" -input-paths "$work/$module.json" \
        -breakage-allowlist-path "$work/allowed.txt" -o "$work/$module.txt" 2>"$work/$module.err" \
        || { cat "$work/$module.err" >&2; echo "check-api.sh: cannot compare $module" >&2; exit 2; }
    # The report lists section headings; a breaking change is any other line.
    if grep -v -e '^/\* .* \*/$' -e '^$' "$work/$module.txt" >"$work/$module.found"; then
        echo "$module: API changes against $(basename "$baseline") that break its users:" >&2
        sed 's/^/  /' "$work/$module.found" >&2
        status=1
    fi
done
[ $status -eq 0 ] && echo "API of $modules: no breaking change against $(basename "$baseline")"
exit $status
