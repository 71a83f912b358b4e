#!/bin/sh
# Installs uti: the binary, its manual page, bash/zsh/fish completions and
# the systemd user units for the inbox, under a prefix.
#
#   tools/install.sh [--prefix DIR] [--binary PATH]   install (DIR: ~/.local by default)
#   tools/install.sh --uninstall [--prefix DIR]       remove what install put there and left unchanged
#
# Without --binary it builds the release binary first (tools/build-release.sh).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
home=${HOME:-}
prefix=""
binary=""
uninstall=no
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a folder" >&2; exit 2; }; prefix=$2; shift 2 ;;
        --prefix=*) prefix=${1#--prefix=}; shift ;;
        --binary) [ $# -ge 2 ] || { echo "install.sh: --binary needs a path" >&2; exit 2; }; binary=$2; shift 2 ;;
        --binary=*) binary=${1#--binary=}; shift ;;
        --uninstall) uninstall=yes; shift ;;
        -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown argument \"$1\" (see --help)" >&2; exit 2 ;;
    esac
done
if [ -z "$prefix" ]; then
    [ -n "$home" ] || { echo "install.sh: HOME is not set; give --prefix" >&2; exit 2; }
    prefix="$home/.local"
fi
case "$prefix" in
    /*) ;;
    *) prefix="$(pwd)/$prefix" ;;
esac
# One spelling of the folder: no trailing slashes, so ~/.local/ is ~/.local.
while [ "${prefix%/}" != "$prefix" ] && [ "$prefix" != / ]; do prefix=${prefix%/}; done
# The units name the binary in ExecStart, where systemd splits words and
# expands %, and the manifest is one path a line: refuse what they cannot carry.
case "$prefix" in
    *[!A-Za-z0-9/._+@,:=-]*)
        echo "install.sh: the prefix \"$prefix\" holds a character a systemd unit cannot carry unquoted" \
            "(only letters, digits and / . _ + @ , : = - are allowed); nothing was installed" >&2
        exit 2 ;;
esac

# Where each file goes: where each shell, man and systemd look under a prefix.
if [ -n "$home" ] && [ "$prefix" = "$home/.local" ]; then units="$home/.local/share/systemd/user"; else units="$prefix/lib/systemd/user"; fi
unit_files="uti-inbox.service uti-inbox-once.service uti-inbox.path"
# Every file install writes, one a line: its place, its mode, and what it is
# made from (the binary, the manual page, or the file of that name made in
# the scratch folder). Install writes these and uninstall removes no others.
destinations() {
    echo "$prefix/bin/uti 755 binary"
    echo "$prefix/share/man/man1/uti.1 644 manual"
    echo "$prefix/share/bash-completion/completions/uti 644 bash"
    echo "$prefix/share/zsh/site-functions/_uti 644 zsh"
    echo "$prefix/share/fish/vendor_completions.d/uti.fish 644 fish"
    for unit in $unit_files; do echo "$units/$unit 644 $unit"; done
}
# What was installed, with each file's SHA-256: uninstall removes a file
# only while it is still the one installed.
manifest="$prefix/share/uti/installed-files"
me=$(id -u)

# Moves into the folder that holds $1, a path under the prefix, one folder at
# a time from the prefix down; the prefix itself is taken as given. $2 says
# what a folder on the way may be: "make" makes the missing ones and, like
# "follow", follows a symbolic link only when it belongs to this user or to
# root; "strict" follows none. Each folder entered is checked to be the one
# its name leads to once inside, so a name swapped for a link meanwhile is
# noticed. On failure it says why on standard error. Run it in a subshell.
enter() {
    if [ "$2" = make ]; then mkdir -p "$prefix" || return 1; fi
    cd -P "$prefix" 2>/dev/null || { echo "$prefix is not a folder" >&2; return 1; }
    shown=$prefix
    rest=${1#"$prefix"/}
    while [ "${rest#*/}" != "$rest" ]; do
        part=${rest%%/*} rest=${rest#*/}
        shown=$shown/$part
        here=$(pwd -P)
        [ "$here" != / ] || here=""
        if [ "$2" = make ] && [ ! -e "$part" ] && [ ! -L "$part" ]; then mkdir "$part" 2>/dev/null || true; fi
        owner=""
        if [ -L "$part" ]; then
            owner=$(stat -c %u "$part")
            if [ "$2" = strict ]; then
                echo "$shown is a symbolic link" >&2; return 1
            elif [ "$owner" != 0 ] && [ "$owner" != "$me" ]; then
                echo "$shown is a symbolic link of another user's (uid $owner), which is not followed" >&2; return 1
            fi
        fi
        cd -P "$part" 2>/dev/null || { echo "$shown is not a folder" >&2; return 1; }
        if [ -z "$owner" ]; then
            [ "$(pwd -P)" = "$here/$part" ]
        else
            [ -L "$here/$part" ] && [ "$(stat -c %u "$here/$part")" = "$owner" ] \
                && [ "$(cd -P "$here/$part" && pwd -P)" = "$(pwd -P)" ]
        fi || { echo "$shown changed while it was entered" >&2; return 1; }
    done
}

# Copies $2 with mode $3 into a new hidden file beside $1 (a destination in
# the current folder) and prints that file's name and SHA-256. mktemp makes
# the file under a name no one chose before (O_EXCL, mode 0600); the copy is
# written only once the name, opened, is an empty regular file of this user's
# with no other name, and the mode is set through that open descriptor, so
# neither follows a link planted in the folder.
stage() {
    tmp=$(mktemp ".$(basename "$1").install-XXXXXX") || return 1
    exec 3<>"$tmp"
    if [ ! -f /dev/fd/3 ] || [ "$(stat -L -c '%u %h %s' /dev/fd/3)" != "$me 1 0" ]; then
        echo "$tmp was replaced before it was written" >&2; return 1
    fi
    cat "$2" >&3 && chmod "$3" /dev/fd/3 || return 1
    echo "$tmp $(sha256sum < /dev/fd/3 | cut -d' ' -f1)"
}

# Removes $2, a name in the current folder, if it is a regular file whose
# SHA-256 is $1; otherwise says why not on standard error.
remove() {
    if [ -L "$2" ]; then echo "it is a symbolic link" >&2; return 1; fi
    if [ ! -f "$2" ] || [ "$(sha256sum < "$2" | cut -d' ' -f1)" != "$1" ]; then
        echo "it changed since it was installed" >&2; return 1
    fi
    rm -f "./$2" 2>/dev/null || { echo "it cannot be removed" >&2; return 1; }
}

scratch=$(mktemp -d)
case "$scratch" in /*) ;; *) scratch="$(pwd)/$scratch" ;; esac
# Each hidden copy not yet in place, one a line: its destination and its name.
: > "$scratch/staged"
cleanup() {
    while read -r destination tmp; do
        ( enter "$destination" follow && rm -f "./$tmp" ) 2>/dev/null || true
    done < "$scratch/staged"
    rm -rf "$scratch"
}
trap cleanup EXIT
destinations > "$scratch/destinations"
cut -d' ' -f1 "$scratch/destinations" > "$scratch/places"

if [ "$uninstall" = yes ]; then
    if [ ! -e "$manifest" ] && [ ! -L "$manifest" ]; then
        while read -r file; do
            if [ -e "$file" ] || [ -L "$file" ]; then
                echo "install.sh: no $manifest, so $file is not known to be uti's; nothing was removed" >&2
                exit 1
            fi
        done < "$scratch/places"
        echo "nothing of uti's is installed under $prefix"
        exit 0
    fi
    # The manifest is read only when it is a regular file reached through no link.
    (
        enter "$manifest" strict || exit 1
        name=$(basename "$manifest")
        if [ -L "$name" ]; then echo "$manifest is a symbolic link" >&2; exit 1; fi
        if [ ! -f "$name" ]; then echo "$manifest is not a regular file" >&2; exit 1; fi
        cat "./$name"
    ) > "$scratch/manifest" 2>"$scratch/error" || {
        echo "install.sh: $(cat "$scratch/error"), so it is not trusted; nothing was removed" >&2
        exit 1
    }
    status=0
    while IFS=' ' read -r sum file; do
        [ -n "$file" ] || continue
        if ! grep -qxF -- "$file" "$scratch/places"; then
            echo "install.sh: kept $file: it is not one of the files install writes under $prefix" >&2
            status=1
            continue
        fi
        if [ ! -e "$file" ] && [ ! -L "$file" ]; then continue; fi
        if ( enter "$file" strict && remove "$sum" "$(basename "$file")" ) 2>"$scratch/error"; then
            echo "removed $file"
        else
            echo "install.sh: kept $file: $(cat "$scratch/error")" >&2
            status=1
        fi
    done < "$scratch/manifest"
    ( enter "$manifest" strict && rm -f "./$(basename "$manifest")" ) 2>/dev/null || true
    ( enter "$prefix/share/uti" strict && rmdir uti ) 2>/dev/null || true
    exit $status
fi

if [ -z "$binary" ]; then
    binary=$("$root/tools/build-release.sh")
fi
[ -f "$binary" ] && [ -x "$binary" ] || { echo "install.sh: $binary is not an executable file; nothing was installed" >&2; exit 1; }
# Files are copied from inside their folders: the binary's path must not depend on the current one.
case "$binary" in /*) ;; *) binary="$(pwd)/$binary" ;; esac
# The binary must be uti and run here before anything is installed.
case "$("$binary" --version 2>/dev/null || true)" in
    [0-9]*.[0-9]*.[0-9]*) ;;
    *) echo "install.sh: $binary does not run as uti (uti --version); nothing was installed" >&2; exit 1 ;;
esac

for shell in bash zsh fish; do
    "$binary" --generate-completion-script "$shell" > "$scratch/$shell"
    [ -s "$scratch/$shell" ] || { echo "install.sh: $binary gave no $shell completions; nothing was installed" >&2; exit 1; }
done
for unit in $unit_files; do
    sed "s|@BINDIR@|$prefix/bin|g" "$root/systemd/$unit" > "$scratch/$unit"
done

# Every file is first copied beside its place under a hidden name; only when
# all are there are they renamed over their places, so a failure installs
# nothing, and a running uti or a reader never sees half a file.
: > "$scratch/manifest"
while read -r destination mode what; do
    case "$what" in
        binary) source=$binary ;;
        manual) source="$root/docs/uti.1" ;;
        *) source="$scratch/$what" ;;
    esac
    if [ -d "$destination" ] && [ ! -L "$destination" ]; then
        echo "install.sh: $destination is a folder; nothing was installed" >&2; exit 1
    fi
    staged=$( (enter "$destination" make && stage "$destination" "$source" "$mode") 2>"$scratch/error") || {
        echo "install.sh: cannot write $destination ($(cat "$scratch/error")); nothing was installed" >&2
        exit 1
    }
    echo "$destination ${staged% *}" >> "$scratch/staged"
    echo "${staged##* } $destination" >> "$scratch/manifest"
done < "$scratch/destinations"
# Files of an earlier install that this one did not replace stay listed; an
# earlier manifest is read only when it is a regular file.
(
    enter "$manifest" follow && name=$(basename "$manifest") && [ -f "$name" ] && [ ! -L "$name" ] && cat "./$name"
) > "$scratch/earlier" 2>/dev/null || true
cut -d' ' -f2- "$scratch/manifest" > "$scratch/written"
while IFS=' ' read -r sum file; do
    [ -n "$file" ] || continue
    grep -qxF -- "$file" "$scratch/written" || echo "$sum $file" >> "$scratch/manifest"
done < "$scratch/earlier"
staged=$( (enter "$manifest" make && stage "$manifest" "$scratch/manifest" 644) 2>"$scratch/error") || {
    echo "install.sh: cannot write $manifest ($(cat "$scratch/error")); nothing was installed" >&2
    exit 1
}
echo "$manifest ${staged% *}" >> "$scratch/staged"
# The manifest goes in place last, once every file it lists is there.
while read -r destination tmp; do
    ( enter "$destination" follow && mv -f -T "./$tmp" "./$(basename "$destination")" ) 2>"$scratch/error" || {
        echo "install.sh: cannot put $destination in place ($(cat "$scratch/error"))" >&2
        exit 1
    }
    [ "$destination" = "$manifest" ] || echo "installed $destination"
done < "$scratch/staged"
: > "$scratch/staged"
case ":${PATH:-}:" in *":$prefix/bin:"*) ;; *) echo "note: $prefix/bin is not on PATH" ;; esac
echo "zsh reads $prefix/share/zsh/site-functions only when it is on fpath"
echo "the inbox service: systemctl --user daemon-reload && systemctl --user enable --now uti-inbox.service"
