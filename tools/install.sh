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
bin="$prefix/bin/uti"
manual="$prefix/share/man/man1/uti.1"
bash_completion="$prefix/share/bash-completion/completions/uti"
zsh_completion="$prefix/share/zsh/site-functions/_uti"
fish_completion="$prefix/share/fish/vendor_completions.d/uti.fish"
if [ -n "$home" ] && [ "$prefix" = "$home/.local" ]; then units="$home/.local/share/systemd/user"; else units="$prefix/lib/systemd/user"; fi
unit_files="uti-inbox.service uti-inbox-once.service uti-inbox.path"
# What was installed, with each file's SHA-256: uninstall removes a file
# only while it is still the one installed.
manifest="$prefix/share/uti/installed-files"

if [ "$uninstall" = yes ]; then
    if [ ! -f "$manifest" ]; then
        for file in "$bin" "$manual" "$bash_completion" "$zsh_completion" "$fish_completion" "$units/uti-inbox.service"; do
            if [ -e "$file" ] || [ -L "$file" ]; then
                echo "install.sh: no $manifest, so $file is not known to be uti's; nothing was removed" >&2
                exit 1
            fi
        done
        echo "nothing of uti's is installed under $prefix"
        exit 0
    fi
    status=0
    while IFS=' ' read -r sum file; do
        [ -n "$file" ] || continue
        if [ ! -e "$file" ] && [ ! -L "$file" ]; then continue; fi
        if [ -f "$file" ] && [ ! -L "$file" ] && [ "$(sha256sum < "$file" | cut -d' ' -f1)" = "$sum" ]; then
            rm -f "$file" && echo "removed $file" || { echo "install.sh: cannot remove $file" >&2; status=1; }
        else
            echo "install.sh: kept $file: it changed since it was installed" >&2
            status=1
        fi
    done < "$manifest"
    rm -f "$manifest"
    rmdir "$prefix/share/uti" 2>/dev/null || true
    exit $status
fi

if [ -z "$binary" ]; then
    binary=$("$root/tools/build-release.sh")
fi
[ -f "$binary" ] && [ -x "$binary" ] || { echo "install.sh: $binary is not an executable file; nothing was installed" >&2; exit 1; }
# The binary must be uti and run here before anything is installed.
case "$("$binary" --version 2>/dev/null || true)" in
    [0-9]*.[0-9]*.[0-9]*) ;;
    *) echo "install.sh: $binary does not run as uti (uti --version); nothing was installed" >&2; exit 1 ;;
esac

scratch=$(mktemp -d)
staged=""
cleanup() {
    for tmp in $staged; do rm -f "$tmp"; done
    rm -rf "$scratch"
}
trap cleanup EXIT
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
set -- "$binary" "$bin" 755 "$root/docs/uti.1" "$manual" 644 "$scratch/bash" "$bash_completion" 644 \
    "$scratch/zsh" "$zsh_completion" 644 "$scratch/fish" "$fish_completion" 644
for unit in $unit_files; do set -- "$@" "$scratch/$unit" "$units/$unit" 644; done
while [ $# -gt 0 ]; do
    source=$1 destination=$2 mode=$3
    shift 3
    if [ -d "$destination" ] && [ ! -L "$destination" ]; then
        echo "install.sh: $destination is a folder; nothing was installed" >&2; exit 1
    fi
    folder=$(dirname "$destination")
    tmp="$folder/.$(basename "$destination").install-$$"
    { mkdir -p "$folder" && cp "$source" "$tmp" && chmod "$mode" "$tmp"; } 2>"$scratch/error" || {
        rm -f "$tmp"
        echo "install.sh: cannot write $destination ($(cat "$scratch/error")); nothing was installed" >&2
        exit 1
    }
    staged="$staged $tmp"
    echo "$(sha256sum < "$tmp" | cut -d' ' -f1) $destination" >> "$scratch/manifest"
done
mkdir -p "$(dirname "$manifest")" || { echo "install.sh: cannot write $manifest; nothing was installed" >&2; exit 1; }
while IFS=' ' read -r sum destination; do
    tmp="$(dirname "$destination")/.$(basename "$destination").install-$$"
    mv -f -T "$tmp" "$destination" || { echo "install.sh: cannot put $destination in place" >&2; exit 1; }
    echo "installed $destination"
done < "$scratch/manifest"
staged=""
# Files of an earlier install that this one did not replace stay listed.
if [ -f "$manifest" ]; then
    while IFS=' ' read -r sum file; do
        grep -q " $file\$" "$scratch/manifest" || echo "$sum $file" >> "$scratch/manifest"
    done < "$manifest"
fi
cp "$scratch/manifest" "$manifest.tmp" && mv -f "$manifest.tmp" "$manifest"
case ":${PATH:-}:" in *":$prefix/bin:"*) ;; *) echo "note: $prefix/bin is not on PATH" ;; esac
echo "zsh reads $prefix/share/zsh/site-functions only when it is on fpath"
echo "the inbox service: systemctl --user daemon-reload && systemctl --user enable --now uti-inbox.service"
