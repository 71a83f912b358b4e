#!/bin/sh
# Installs uti: the binary, its manual page, bash/zsh/fish completions and
# the systemd user units for the inbox, under a prefix.
#
#   tools/install.sh [--prefix DIR] [--binary PATH]   install (DIR: ~/.local by default)
#   tools/install.sh --uninstall [--prefix DIR]       remove exactly what install puts there
#
# Without --binary it builds the release binary first (tools/build-release.sh).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
prefix="$HOME/.local"
binary=""
uninstall=no
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a folder" >&2; exit 2; }; prefix=$2; shift 2 ;;
        --prefix=*) prefix=${1#--prefix=}; shift ;;
        --binary) [ $# -ge 2 ] || { echo "install.sh: --binary needs a path" >&2; exit 2; }; binary=$2; shift 2 ;;
        --binary=*) binary=${1#--binary=}; shift ;;
        --uninstall) uninstall=yes; shift ;;
        -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown argument \"$1\" (see --help)" >&2; exit 2 ;;
    esac
done
case "$prefix" in
    "") echo "install.sh: --prefix is empty" >&2; exit 2 ;;
    /*) ;;
    *) prefix="$(pwd)/$prefix" ;;
esac

# Where each file goes: where each shell, man and systemd look under a prefix.
bin="$prefix/bin/uti"
manual="$prefix/share/man/man1/uti.1"
bash_completion="$prefix/share/bash-completion/completions/uti"
zsh_completion="$prefix/share/zsh/site-functions/_uti"
fish_completion="$prefix/share/fish/vendor_completions.d/uti.fish"
if [ "$prefix" = "$HOME/.local" ]; then units="$HOME/.local/share/systemd/user"; else units="$prefix/lib/systemd/user"; fi
unit_files="uti-inbox.service uti-inbox-once.service uti-inbox.path"

if [ "$uninstall" = yes ]; then
    for file in "$bin" "$manual" "$bash_completion" "$zsh_completion" "$fish_completion"; do
        if [ -e "$file" ] || [ -L "$file" ]; then rm -f "$file" && echo "removed $file"; fi
    done
    for unit in $unit_files; do
        if [ -e "$units/$unit" ]; then rm -f "$units/$unit" && echo "removed $units/$unit"; fi
    done
    exit 0
fi

if [ -z "$binary" ]; then
    binary=$("$root/tools/build-release.sh")
fi
[ -f "$binary" ] && [ -x "$binary" ] || { echo "install.sh: $binary is not an executable file; nothing was installed" >&2; exit 1; }
# The binary must run here before anything is installed.
"$binary" --version >/dev/null || { echo "install.sh: $binary does not run; nothing was installed" >&2; exit 1; }

# Each file is written beside its place and renamed over it, so a running
# uti or a reader never sees half a file.
put() { # put SOURCE-FILE DESTINATION MODE
    mkdir -p "$(dirname "$2")"
    tmp="$(dirname "$2")/.$(basename "$2").install-$$"
    cp "$1" "$tmp" && chmod "$3" "$tmp" && mv -f "$tmp" "$2" || { rm -f "$tmp"; echo "install.sh: cannot write $2" >&2; exit 1; }
    echo "installed $2"
}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
put "$binary" "$bin" 755
put "$root/docs/uti.1" "$manual" 644
for shell in bash zsh fish; do
    "$binary" --generate-completion-script "$shell" > "$scratch/$shell"
done
put "$scratch/bash" "$bash_completion" 644
put "$scratch/zsh" "$zsh_completion" 644
put "$scratch/fish" "$fish_completion" 644
for unit in $unit_files; do
    sed "s|@BINDIR@|$prefix/bin|g" "$root/systemd/$unit" > "$scratch/$unit"
    put "$scratch/$unit" "$units/$unit" 644
done
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "note: $prefix/bin is not on PATH" ;; esac
echo "zsh reads $prefix/share/zsh/site-functions only when it is on fpath"
echo "the inbox service: systemctl --user daemon-reload && systemctl --user enable --now uti-inbox.service"
