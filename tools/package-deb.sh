#!/bin/sh
# Builds a Debian package of uti from the static release binary and prints
# its path: the files tools/install.sh installs, in Debian's places
# (install.sh --prefix /usr --layout debian), with the copyright file, the
# changelog and lintian's overrides in /usr/share.
#
#   tools/package-deb.sh [--binary PATH] [--output DIR]
#
# Without --binary it builds the release binary first (tools/build-release.sh).
# The package, uti_VERSION_ARCH.deb, goes in DIR (.build/deb by default).
# Maintainer: DEBFULLNAME and DEBEMAIL, else git's user.name and user.email.
# The same inputs make the same package: every file's time is
# SOURCE_DATE_EPOCH, the last commit's time unless it is set.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
binary=""
output=""
while [ $# -gt 0 ]; do
    case "$1" in
        --binary) [ $# -ge 2 ] || { echo "package-deb.sh: --binary needs a path" >&2; exit 2; }; binary=$2; shift 2 ;;
        --binary=*) binary=${1#--binary=}; shift ;;
        --output) [ $# -ge 2 ] || { echo "package-deb.sh: --output needs a folder" >&2; exit 2; }; output=$2; shift 2 ;;
        --output=*) output=${1#--output=}; shift ;;
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "package-deb.sh: unknown argument \"$1\" (see --help)" >&2; exit 2 ;;
    esac
done
fail() { echo "package-deb.sh: $*; no package was built" >&2; exit 1; }
for tool in dpkg dpkg-deb gzip md5sum ldd; do
    command -v "$tool" >/dev/null 2>&1 || fail "$tool is missing (Debian: dpkg, gzip, coreutils, libc-bin)"
done

# Every file's time, and the changelog's, from the last commit.
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
    SOURCE_DATE_EPOCH=$(git -C "$root" log -1 --format=%ct 2>/dev/null) \
        || fail "$root is no git checkout; set SOURCE_DATE_EPOCH"
fi
case "$SOURCE_DATE_EPOCH" in
    '' | *[!0-9]*) fail "SOURCE_DATE_EPOCH is \"$SOURCE_DATE_EPOCH\", not seconds since 1970" ;;
esac
export SOURCE_DATE_EPOCH

# Who answers for the package, as Debian's own tools ask (dch, dh_make).
name=${DEBFULLNAME:-}
email=${DEBEMAIL:-}
case "$email" in
    *'<'*'>'*) [ -n "$name" ] || name=$(echo "${email%%<*}" | sed 's/ *$//'); email=${email#*<}; email=${email%%>*} ;;
esac
[ -n "$name" ] || name=$(git -C "$root" config user.name 2>/dev/null || true)
[ -n "$email" ] || email=$(git -C "$root" config user.email 2>/dev/null || true)
[ -n "$name" ] && [ -n "$email" ] || fail "no maintainer: set DEBFULLNAME and DEBEMAIL (or git's user.name and user.email)"
maintainer="$name <$email>"
case "$maintainer" in *"
"*) fail "the maintainer \"$maintainer\" spans lines" ;; esac

if [ -z "$binary" ]; then
    binary=$("$root/tools/build-release.sh") || fail "the release build failed"
fi
[ -f "$binary" ] && [ -x "$binary" ] || fail "$binary is not an executable file"
case "$binary" in /*) ;; *) binary="$(pwd)/$binary" ;; esac
version=$("$binary" --version 2>/dev/null || true)
case "$version" in
    [0-9]*.[0-9]*.[0-9]*) ;;
    *) fail "$binary does not run as uti (uti --version)" ;;
esac
# The package declares no library it needs: the binary must need none.
case "$(ldd "$binary" 2>&1)" in
    *"=>"*) fail "$binary loads shared libraries; package the static release build (tools/build-release.sh)" ;;
esac
# The changelog's newest release must be the binary's version.
released=$(sed -n 's/^## \([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\) [^ ]* [0-9-]*$/\1/p' "$root/CHANGELOG.md" | head -n 1)
[ "$released" = "$version" ] \
    || fail "$binary is uti $version, but the newest release in CHANGELOG.md is ${released:-none}"
arch=$(dpkg --print-architecture)

if [ -z "$output" ]; then output="$root/.build/deb"; fi
mkdir -p "$output" 2>/dev/null || fail "cannot make the folder $output"
output=$(cd "$output" && pwd)
package="$output/uti_${version}_$arch.deb"

umask 022
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
trap 'exit 1' HUP INT TERM
tree="$stage/root"
mkdir "$tree"

# What install.sh installs, as it would under /usr, written under the tree.
"$root/tools/install.sh" --prefix /usr --layout debian --destdir "$tree" --binary "$binary" >"$stage/install.log" 2>&1 \
    || { cat "$stage/install.log" >&2; fail "tools/install.sh could not write the package's files"; }

docs="$tree/usr/share/doc/uti"
mkdir -p "$docs" "$tree/usr/share/lintian/overrides"
# The copyright file in Debian's machine-readable format; the license text
# is LICENSE's, from its permission notice on.
{
    cat <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: uti
Comment: /usr/bin/uti is one statically linked executable. Besides uti's own
 code it holds the Swift runtime, Foundation and Dispatch (Apache-2.0 with
 the Runtime Library Exception; Apple Inc. and the Swift project authors),
 swift-argument-parser (Apache-2.0; Apple Inc. and the Swift project
 authors), libxml2 (MIT; Daniel Veillard), zlib (Zlib; Jean-loup Gailly and
 Mark Adler), liblzma (public domain; Lasse Collin), the GNU C Library
 (LGPL-2.1+) and GCC's runtime libraries (GPL-3+ with the GCC Runtime
 Library Exception). The texts of Apache-2.0, LGPL-2.1 and GPL-3 are in
 /usr/share/common-licenses.

Files: *
Copyright: $(sed -n 's/^Copyright (c) //p' "$root/LICENSE" | head -n 1)
License: Expat

License: Expat
EOF
    sed -n '/^Permission is hereby granted/,$p' "$root/LICENSE" | sed 's/^$/./; s/^/ /'
} > "$docs/copyright"
grep -q '^Copyright: [0-9]' "$docs/copyright" || fail "LICENSE names no copyright holder (Copyright (c) YEAR HOLDER)"

# Debian's changelog: one entry for each release in CHANGELOG.md, newest
# first, with that release's notes and date; unreleased changes are left out.
awk -v maintainer="$maintainer" '
    function close_entry() {
        if (open) {
            while (lines > 0 && body[lines] == "") lines--
            for (i = 1; i <= lines; i++) print (body[i] == "" ? "" : "  " body[i])
            cmd = "date -u -R -d " day
            cmd | getline when
            close(cmd)
            print ""
            print " -- " maintainer "  " when
            open = 0
        }
    }
    /^## / {
        close_entry()
        if ($2 ~ /^[0-9]+\.[0-9]+\.[0-9]+$/ && $4 ~ /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]$/) {
            if (entries++) print ""
            print "uti (" $2 ") unstable; urgency=medium"
            print ""
            open = 1; lines = 0; day = $4
        }
        next
    }
    open && (lines > 0 || $0 != "") { body[++lines] = $0 }
    END { close_entry() }
' "$root/CHANGELOG.md" > "$stage/changelog"
gzip -9n < "$stage/changelog" > "$docs/changelog.gz"

# What lintian reports and this package means to be.
cat > "$tree/usr/share/lintian/overrides/uti" <<'EOF'
# uti is one static executable on purpose: it needs no Swift runtime on the
# system and starts in half a millisecond (docs/install.md, "Binary size").
# libxml2 and zlib are linked into it as part of that.
uti: statically-linked-binary [usr/bin/uti]
uti: embedded-library libxml2 [usr/bin/uti]
uti: embedded-library zlib [usr/bin/uti]
EOF

# The control files. Installed-Size is counted as dpkg-gencontrol counts it:
# each file's size in KiB, rounded up, and 1 KiB for each folder.
mkdir "$tree/DEBIAN"
size=$(find "$tree" -mindepth 1 -path "$tree/DEBIAN" -prune -o -printf '%y %s\n' \
    | awk '{ if ($1 == "f") total += int(($2 + 1023) / 1024); else total += 1 } END { print total }')
cat > "$tree/DEBIAN/control" <<EOF
Package: uti
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Recommends: shared-mime-info
Section: utils
Priority: optional
Description: Apple's Uniform Type Identifiers on Linux
 uti answers "what type is this?" as Apple's UTType does on a Mac: it maps
 filename extensions, MIME types and type identifiers to one another,
 follows the conformance tree, reads exported and imported declarations
 and makes dynamic identifiers for unknown tags. It types files by name
 and content as GIO does, with the system's shared-mime-info database.
 .
 It also moves what arrives in ~/Documents/Inbox into ~/Documents without
 replacing a file (with systemd user units to run it as a service),
 reports settled, typed changes in folders, and says which application
 opens a file or URL.
EOF
(cd "$tree" && find usr -type f | LC_ALL=C sort | xargs md5sum) > "$tree/DEBIAN/md5sums"
find "$tree" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

# Written beside its place, then renamed over it: no half-written package.
dpkg-deb --build --root-owner-group "$tree" "$stage/uti.deb" >"$stage/build.log" 2>&1 \
    || { cat "$stage/build.log" >&2; fail "dpkg-deb could not build the package"; }
partial=$(mktemp "$output/.uti.deb.XXXXXX") || fail "cannot write in $output"
if ! cp "$stage/uti.deb" "$partial" || ! chmod 644 "$partial" || ! mv -f "$partial" "$package"; then
    rm -f "$partial"
    fail "cannot write $package"
fi
echo "$package"
