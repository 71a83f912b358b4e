#!/bin/sh
# Installs uti: the binary, its manual page, bash/zsh/fish completions and
# the systemd user units for the inbox, under a prefix.
#
#   tools/install.sh [--prefix DIR] [--binary PATH]   install (DIR: ~/.local by default)
#   tools/install.sh --uninstall [--prefix DIR]       remove what install put there and left unchanged
#   tools/install.sh --list [--prefix DIR]            print each file's place and mode, install nothing
#
# Without --binary it builds the release binary first (tools/build-release.sh).
# --layout debian puts the zsh completions in share/zsh/vendor-completions and
# the manual page gzipped, as Debian's packages do; --destdir ROOT writes the
# files under ROOT as though it were / (for a package: tools/package-deb.sh),
# with no manifest and no uninstall.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
home=${HOME:-}
prefix=""
binary=""
uninstall=no
list=no
layout=plain
destdir=""
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a folder" >&2; exit 2; }; prefix=$2; shift 2 ;;
        --prefix=*) prefix=${1#--prefix=}; shift ;;
        --binary) [ $# -ge 2 ] || { echo "install.sh: --binary needs a path" >&2; exit 2; }; binary=$2; shift 2 ;;
        --binary=*) binary=${1#--binary=}; shift ;;
        --uninstall) uninstall=yes; shift ;;
        --list) list=yes; shift ;;
        --layout) [ $# -ge 2 ] || { echo "install.sh: --layout needs plain or debian" >&2; exit 2; }; layout=$2; shift 2 ;;
        --layout=*) layout=${1#--layout=}; shift ;;
        --destdir) [ $# -ge 2 ] || { echo "install.sh: --destdir needs a folder" >&2; exit 2; }; destdir=$2; shift 2 ;;
        --destdir=*) destdir=${1#--destdir=}; shift ;;
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
case "$layout" in
    plain | debian) ;;
    *) echo "install.sh: unknown layout \"$layout\" (plain or debian)" >&2; exit 2 ;;
esac
# The installed files name $named (the units' ExecStart); they are written
# under $prefix, which is the same folder unless --destdir puts them elsewhere.
named=$prefix
if [ -n "$destdir" ]; then
    [ "$uninstall" = no ] || { echo "install.sh: --destdir installs only; remove a package with its package manager" >&2; exit 2; }
    case "$destdir" in /*) ;; *) destdir="$(pwd)/$destdir" ;; esac
    while [ "${destdir%/}" != "$destdir" ]; do destdir=${destdir%/}; done
    [ "$named" != / ] || named=""
    prefix=$destdir$named
    [ -n "$named" ] || named=/
fi
# The units name the binary in ExecStart, where systemd splits words and
# expands %, and the manifest is one path a line: refuse what they cannot carry.
case "$prefix" in
    *[!A-Za-z0-9/._+@,:=-]*)
        echo "install.sh: the prefix \"$prefix\" holds a character a systemd unit cannot carry unquoted" \
            "(only letters, digits and / . _ + @ , : = - are allowed); nothing was installed" >&2
        exit 2 ;;
esac

# Where each file goes: where each shell, man and systemd look under a prefix.
if [ -n "$home" ] && [ "$named" = "$home/.local" ]; then units="$prefix/share/systemd/user"; else units="$prefix/lib/systemd/user"; fi
if [ "$layout" = debian ]; then zsh_folder="$prefix/share/zsh/vendor-completions"; else zsh_folder="$prefix/share/zsh/site-functions"; fi
unit_files="uti-inbox.service uti-inbox-once.service uti-inbox.path"
# Every file install writes, one a line: its place, its mode, and what it is
# made from (the binary, the manual page, or the file of that name made in
# the scratch folder). Install writes these and uninstall removes no others.
destinations() {
    echo "$prefix/bin/uti 755 binary"
    if [ "$layout" = debian ]; then
        echo "$prefix/share/man/man1/uti.1.gz 644 manual.gz"
    else
        echo "$prefix/share/man/man1/uti.1 644 manual"
    fi
    echo "$prefix/share/bash-completion/completions/uti 644 bash"
    echo "$zsh_folder/_uti 644 zsh"
    echo "$prefix/share/fish/vendor_completions.d/uti.fish 644 fish"
    for unit in $unit_files; do echo "$units/$unit 644 $unit"; done
}
# What was installed, with each file's SHA-256: uninstall removes a file
# only while it is still the one installed.
manifest="$prefix/share/uti/installed-files"
me=$(id -u)

# Makes the prefix and each missing folder above it, outermost first, and
# notes each one made, with its device:inode, in the list "made".
make_prefix() {
    missing=""
    path=$prefix
    while [ -n "$path" ] && [ ! -e "$path" ] && [ ! -L "$path" ]; do
        missing="$path $missing"
        path=${path%/*}
    done
    # The prefix holds no space and no pattern character, so the list splits into its folders.
    for path in $missing; do
        [ ! -d "$path" ] || continue
        mkdir "$path" || return 1
        echo "prefix $(stat -c %d:%i "$path") $path" >> "$scratch/made"
    done
}

# Moves into the folder that holds $1, a path under the prefix, one folder at
# a time from the prefix down; the prefix itself is taken as given. $2 says
# what a folder on the way may be: "make" makes the missing ones and, like
# "follow", follows a symbolic link only when it belongs to this user or to
# root; "strict" follows none. Each folder entered is checked to be the one
# its name leads to once inside, so a name swapped for a link meanwhile is
# noticed. Each folder made is noted in the list "made", so that a failed
# install can remove it again. On failure it says why on standard error.
# Run it in a subshell.
enter() {
    if [ "$2" = make ]; then make_prefix || return 1; fi
    cd -P "$prefix" 2>/dev/null || { echo "$prefix is not a folder" >&2; return 1; }
    shown=$prefix
    rest=${1#"$prefix"/}
    while [ "${rest#*/}" != "$rest" ]; do
        part=${rest%%/*} rest=${rest#*/}
        shown=$shown/$part
        here=$(pwd -P)
        [ "$here" != / ] || here=""
        made=no
        if [ "$2" = make ] && [ ! -e "$part" ] && [ ! -L "$part" ] && mkdir "$part" 2>/dev/null; then made=yes; fi
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
        [ "$made" = no ] || echo "inside $(stat -c %d:%i .) $shown" >> "$scratch/made"
    done
}

# Moves into $2, a private folder made in the current folder (whose
# device:inode is $1), and checks from inside, where its name no longer
# counts, that it is the folder made ($3, its device:inode), that it is this
# user's alone (mode 700, or 2700 where the current folder passes on its
# group) and that its ".." is the current folder. Someone who can write the
# current folder may rename the private one there or put a link in its
# place, but cannot enter it, nor move it to another folder (that takes the
# right to write it), so once inside, ".." stays the current folder.
pin() {
    cd -P "./$2" 2>/dev/null && [ "$(stat -c %d:%i .)" = "$3" ] && [ "$(stat -c %d:%i ..)" = "$1" ] \
        && case "$(stat -c '%u %a' .)" in "$me 700" | "$me 2700") true ;; *) false ;; esac
}

# Copies $2 with mode $3 into a new private folder beside $1 (a destination
# in the current folder), under $1's name, and prints the copy's SHA-256.
# mktemp makes the folder under a name no one chose before, with mode 700,
# and it is noted at once in the list "staged" (destination, device:inode of
# the current folder, the private folder's name and its device:inode). The
# copy is written only from inside, once the folder is checked and found
# empty: no one else can enter it, so nothing in it can be swapped.
stage() {
    folder=$(stat -c %d:%i .)
    name=$(basename "$1")
    private=$(mktemp -d ".$name.install-XXXXXX") || return 1
    if ! id=$(stat -c %d:%i "./$private" 2>/dev/null); then
        echo "$(dirname "$1")/$private was replaced before it was written" >&2; return 1
    fi
    echo "$1 $folder $private $id" >> "$scratch/staged"
    if ! pin "$folder" "$private" "$id" || [ -n "$(ls -A)" ]; then
        echo "$(dirname "$1")/$private was replaced before it was written" >&2; return 1
    fi
    cat "$2" > "./$name" && chmod "$3" "./$name" || return 1
    sha256sum < "./$name" | cut -d' ' -f1
}

# Moves into the private folder $3 (device:inode $4) that stage made for $1
# in the folder whose device:inode is $2, checking it as stage did. On
# failure it says why on standard error. Run it in a subshell.
reenter() {
    enter "$1" follow || return 1
    [ "$(stat -c %d:%i .)" = "$2" ] || { echo "$(dirname "$1") changed after $1 was copied there" >&2; return 1; }
    pin "$2" "$3" "$4" || { echo "$(dirname "$1")/$3 was replaced after $1 was copied into it" >&2; return 1; }
}

# Removes the private folder $3 (device:inode $4) that stage made for $1 in
# the folder whose device:inode is $2, and the copy in it. Someone who can
# write that folder may have renamed it there, so when its name no longer
# leads to it, it is looked for in that folder by its inode.
discard() {
    enter "$1" follow && [ "$(stat -c %d:%i .)" = "$2" ] || return 1
    name=$3
    if [ "$(stat -c %d:%i "./$name")" != "$4" ]; then
        name=$(find . -mindepth 1 -maxdepth 1 -inum "${4#*:}" -print -quit)
        name=${name#./}
        [ -n "$name" ] && [ "$(stat -c %d:%i "./$name")" = "$4" ] || return 1
    fi
    pin "$2" "$name" "$4" && rm -f "./$(basename "$1")" && cd -P .. && [ "$(stat -c %d:%i .)" = "$2" ] \
        && [ "$(stat -c %d:%i "./$name")" = "$4" ] && rmdir "./$name"
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
# Each private folder stage made, one a line (see stage), and each folder
# enter made, one a line: "prefix" or "inside", its device:inode and its path.
: > "$scratch/staged"
: > "$scratch/made"
finished=no
# Removes each private folder, with the copy still in it, and after a failed
# install each folder it made that is empty, innermost first.
cleanup() {
    while read -r destination folder private id; do
        ( discard "$destination" "$folder" "$private" "$id" ) 2>/dev/null || true
    done < "$scratch/staged"
    if [ "$finished" = no ]; then
        tac "$scratch/made" > "$scratch/unmade"
        while read -r where id path; do
            if [ "$where" = prefix ]; then
                [ "$(stat -c %d:%i "$path")" = "$id" ] && rmdir "$path"
            else
                ( enter "$path" follow && [ "$(stat -c %d:%i "./${path##*/}")" = "$id" ] && rmdir "./${path##*/}" )
            fi 2>/dev/null || true
        done < "$scratch/unmade"
    fi
    rm -rf "$scratch"
}
trap cleanup EXIT
destinations > "$scratch/destinations"
cut -d' ' -f1 "$scratch/destinations" > "$scratch/places"
if [ "$list" = yes ]; then
    cut -d' ' -f1,2 "$scratch/destinations"
    exit 0
fi

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
    sed "s|@BINDIR@|${named%/}/bin|g" "$root/systemd/$unit" > "$scratch/$unit"
done
if [ "$layout" = debian ]; then
    gzip -9n < "$root/docs/uti.1" > "$scratch/manual.gz"
    # bash sources its completions: Debian's lintian wants no #! line in them.
    sed '1{/^#!/d}' "$scratch/bash" > "$scratch/bash.sourced" && mv "$scratch/bash.sourced" "$scratch/bash"
fi

# Every file is first copied into a private folder beside its place; only
# when all are there are they renamed over their places, so a failure
# installs nothing, and a running uti or a reader never sees half a file.
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
    sum=$( (enter "$destination" make && stage "$destination" "$source" "$mode") 2>"$scratch/error") || {
        echo "install.sh: cannot write $destination ($(cat "$scratch/error")); nothing was installed" >&2
        exit 1
    }
    echo "$sum $destination" >> "$scratch/manifest"
done < "$scratch/destinations"
# A package manager records what a package installs: --destdir writes no manifest.
if [ -z "$destdir" ]; then
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
    ( (enter "$manifest" make && stage "$manifest" "$scratch/manifest" 644) > /dev/null 2>"$scratch/error") || {
        echo "install.sh: cannot write $manifest ($(cat "$scratch/error")); nothing was installed" >&2
        exit 1
    }
fi
# Each copy is renamed from inside its private folder, checked again, to its
# name in the folder above; the manifest goes in place last, once every file
# it lists is there. Until the first is in place, a failure has installed nothing.
none="; nothing was installed"
while read -r destination folder private id; do
    name=$(basename "$destination")
    ( reenter "$destination" "$folder" "$private" "$id" && mv -f -T "./$name" "../$name" ) 2>"$scratch/error" || {
        echo "install.sh: cannot put $destination in place ($(cat "$scratch/error"))$none" >&2
        exit 1
    }
    none=""
    [ "$destination" = "$manifest" ] || echo "installed $destination"
done < "$scratch/staged"
finished=yes
[ -z "$destdir" ] || exit 0
case ":${PATH:-}:" in *":$prefix/bin:"*) ;; *) echo "note: $prefix/bin is not on PATH" ;; esac
[ "$layout" = debian ] || echo "zsh reads $zsh_folder only when it is on fpath"

# The folders systemd's user manager reads units from (systemd.unit(5), "User
# Unit Search Path"; `systemd-analyze --user unit-paths` prints them), with
# the XDG variables as this shell has them: the manager's own environment
# may set them otherwise. An empty or relative XDG variable counts as unset.
xdg() { case "$1" in /*) echo "$1" ;; *) echo "$2" ;; esac; }
user_unit_folders() {
    if [ -n "$home" ]; then
        echo "$(xdg "${XDG_CONFIG_HOME:-}" "$home/.config")/systemd/user"
        echo "$(xdg "${XDG_DATA_HOME:-}" "$home/.local/share")/systemd/user"
    fi
    (
        set -f
        IFS=:
        for folder in ${XDG_CONFIG_DIRS:-/etc/xdg} ${XDG_DATA_DIRS:-/usr/local/share:/usr/share}; do
            case "$folder" in /*) echo "$folder/systemd/user" ;; esac
        done
    )
    echo /etc/systemd/user
    case "${XDG_RUNTIME_DIR:-}" in /*) echo "$XDG_RUNTIME_DIR/systemd/user" ;; esac
    echo /run/systemd/user
    echo /usr/local/lib/systemd/user
    echo /usr/lib/systemd/user
}
# Says whether systemd reads the units from where they were installed: the
# folder is one of those above, by its name or, through links, on disk.
units_are_found() {
    here=$(cd -P "$units" 2>/dev/null && pwd -P) || here=$units
    user_unit_folders > "$scratch/unit-folders"
    while read -r folder; do
        [ "$folder" != "$units" ] || return 0
        [ "$(cd -P "$folder" 2>/dev/null && pwd -P)" != "$here" ] || return 0
    done < "$scratch/unit-folders"
    return 1
}
if units_are_found; then
    echo "the inbox service: systemctl --user daemon-reload && systemctl --user enable --now uti-inbox.service"
else
    echo "the inbox service: systemd reads no user units from $units; link them in, then enable one:"
    printf '  systemctl --user link'
    for unit in $unit_files; do printf ' %s' "$units/$unit"; done
    echo " && systemctl --user enable --now uti-inbox.service"
    echo "  (or copy them into ~/.config/systemd/user; see docs/install.md)"
fi
