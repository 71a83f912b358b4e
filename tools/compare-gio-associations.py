#!/usr/bin/env python3
"""Compares `uti set-default --add/--remove` with GIO's
g_app_info_add_supports_type and g_app_info_remove_supports_type: the same
steps are taken in two copies of a fixture XDG tree, one through GIO
(tools/gio/gio-associations.c), one through uti, and after each step the
[Added Associations] and [Removed Associations] of the user's mimeapps.list
must name the same applications in the same order.

Explained differences: uti writes every MIME type of the type (GIO the one
it was given), and `--remove` also clears the application where the user's
file makes it the default (GIO leaves the default). Anything else is a
mismatch; the exit status is then 1.

Usage: tools/compare-gio-associations.py [--uti PATH]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import gio_fixture

ENTRIES = {
    name: f"[Desktop Entry]\nType=Application\nName={name}\nExec=/bin/true %f\nMimeType={mime}\n"
    for name, mime in (("viewer", "image/png;text/plain;"), ("editor", "text/plain;"), ("other", "text/html;"))
}
BEFORE = ("[Added Associations]\ntext/plain=other.desktop;\n\n[Removed Associations]\n"
          "text/plain=viewer.desktop;\nimage/png=other.desktop;\n")
STEPS = [
    ("add", "viewer.desktop", "text/plain"),
    ("add", "editor.desktop", "text/plain"),
    ("add", "viewer.desktop", "text/plain"),
    ("remove", "editor.desktop", "text/plain"),
    ("add", "editor.desktop", "text/plain"),
    ("remove", "viewer.desktop", "image/png"),
    ("add", "other.desktop", "image/png"),
    ("remove", "other.desktop", "text/html"),
    ("add", "viewer.desktop", "x-scheme-handler/viewer"),
    ("remove", "viewer.desktop", "x-scheme-handler/viewer"),
]


def groups(path):
    """{group: {key: [ids]}} of a key file."""
    result, group = {}, None
    if not os.path.exists(path):
        return result
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("["):
                group = line[1:-1]
                result.setdefault(group, {})
            elif "=" in line and group is not None:
                key, value = line.split("=", 1)
                ids = [i for i in value.split(";") if i]
                if ids:
                    result[group][key.strip()] = ids
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uti")
    args = parser.parse_args()
    helper = subprocess.run([os.path.join(gio_fixture.ROOT, "tools/gio/build.sh")], check=True,
                            capture_output=True, text=True).stdout.strip()
    gio = os.path.join(os.path.dirname(helper), "gio-associations")
    uti = gio_fixture.uti_binary(args.uti)
    data = {f"applications/{name}.desktop": body for name, body in ENTRIES.items()}
    mismatches = 0
    with tempfile.TemporaryDirectory() as gio_root, tempfile.TemporaryDirectory() as uti_root:
        gio_env = gio_fixture.build_tree(gio_root, data, {"mimeapps.list": BEFORE})
        uti_env = gio_fixture.build_tree(uti_root, data, {"mimeapps.list": BEFORE})
        for step in STEPS:
            action, app, mime = step
            subprocess.run([gio, action, app, mime], env=gio_env, check=True)
            run = subprocess.run([uti, "set-default", "--no-system", f"--{action}", app, mime], env=uti_env,
                                 capture_output=True, text=True)
            if run.returncode not in (0, 1):
                print(f"{' '.join(step)}: uti exited {run.returncode}: {run.stderr.strip()}")
                mismatches += 1
                continue
            expected = groups(os.path.join(gio_root, "config", "mimeapps.list"))
            found = groups(os.path.join(uti_root, "config", "mimeapps.list"))
            for group in ("Added Associations", "Removed Associations"):
                want = expected.get(group, {})
                got = {k: v for k, v in found.get(group, {}).items() if k in want or k == mime}
                if want != got:
                    print(f"{' '.join(step)}: [{group}] GIO {want}, uti {got}")
                    mismatches += 1
        with open(os.path.join(gio_root, "config", "mimeapps.list")) as f:
            print("GIO's list after the last step:\n" + f.read())
        print(f"{len(STEPS)} steps, {mismatches} mismatches")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
