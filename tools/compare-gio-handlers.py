#!/usr/bin/env python3
"""Compares `uti open-in --type` with `gio mime TYPE` for every MIME type the
shared-mime-info database knows: the default application, the set of
registered applications, and the order of those both list (each
mimeapps.list takes its turn, its defaults then its additions, before the
next).

It runs twice: on this machine's desktop entries and lists, and on a fixture
XDG tree it builds (desktop entries with Hidden, NoDisplay, TryExec, a
missing Exec program, subfolders, mimeapps.list defaults, added and removed
associations, a desktop-specific list). GLib reads associations only from
`mimeinfo.cache`, so the fixture's cache is made with update-desktop-database
(Debian: desktop-file-utils).

A difference is "explained" when uti offers an application through a
supertype that GLib does not walk (GLib follows only sub-class-of; uti
follows the whole conformance tree, as Launch Services does, e.g. image/png
-> public.image -> public.data = application/octet-stream), or when it is
only a user default (GLib lists defaults apart from registered
applications), or when GLib keeps an application that a mimeapps.list removes
from the desktop entries of its own folder (the MIME apps spec says removals
apply to "desktop files in the current directory, or a later one"; GLib 2.74
applies them only to later ones). Anything else is a mismatch; the exit status is 1 when there
is one.

Usage: tools/compare-gio-handlers.py [--uti PATH] [--machine-only | --fixture-only]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import gio_fixture

MIME_DIR = gio_fixture.MIME_DIR


def mime_types():
    with open(os.path.join(MIME_DIR, "types")) as f:
        return [line.strip() for line in f if line.strip()]


def parent_map():
    parents, aliases = {}, {}
    with open(os.path.join(MIME_DIR, "subclasses")) as f:
        for line in f:
            child, parent = line.split()
            parents.setdefault(child, []).append(parent)
    with open(os.path.join(MIME_DIR, "aliases")) as f:
        for line in f:
            alias, canonical = line.split()
            aliases[alias] = canonical
    return parents, aliases


def gio_chain(mime, parents, aliases):
    """The types GLib tries: the type, then sub-class-of parents, breadth first."""
    chain = [aliases.get(mime, mime)]
    i = 0
    while i < len(chain):
        for p in parents.get(chain[i], []):
            p = aliases.get(p, p)
            if p not in chain:
                chain.append(p)
        i += 1
    return chain


def gio_answer(mime, env):
    out = subprocess.run(["gio", "mime", mime], env=env, capture_output=True, text=True).stdout
    default, registered, section = None, [], None
    for line in out.splitlines():
        if line.startswith("Default application for"):
            default = line.rsplit(": ", 1)[1].strip()
        elif line.startswith("Registered applications"):
            section = "registered"
        elif line.startswith("Recommended applications") or line.startswith("No "):
            section = None
        elif line.startswith("\t") and section == "registered":
            registered.append(line.strip())
    return default, registered


def uti_answers(uti, types, env):
    args = [uti, "open-in", "--json"]
    for t in types:
        args += ["--type", t]
    run = subprocess.run(args, env=env, capture_output=True, text=True)
    if run.returncode not in (0, 1):
        sys.exit(f"uti failed ({run.returncode}): {run.stderr.strip()}")
    return {item["query"]: item for item in json.loads(run.stdout)}


def compare(label, uti, env):
    parents, aliases = parent_map()
    types = mime_types()
    answers = uti_answers(uti, types, env)
    mismatches, explained, agreed = [], 0, 0
    for mime in types:
        chain = gio_chain(mime, parents, aliases)
        in_chain = lambda c: c["declaredAs"] == "MIME type" and aliases.get(c["declares"], c["declares"]) in chain
        g_default, g_set = gio_answer(mime, env)
        item = answers[mime]
        cands = item["candidates"]
        defaults_only = {c["id"] for c in cands if c["claim"] == "default"}
        u_set = {c["id"] for c in cands if c["claim"] != "default" and in_chain(c)}
        u_extra = [c["id"] for c in cands if c["id"] not in u_set]
        u_default = next((c["id"] for c in cands if in_chain(c)), None)
        # GLib keeps a folder's own desktop entries that its mimeapps.list
        # removes; the spec (and uti) removes them.
        removed = {e["id"] for e in item["excluded"] if e["claim"] == "removed"}
        problems = []
        if u_set != set(g_set) - defaults_only - removed:
            missing = sorted(set(g_set) - defaults_only - removed - u_set)
            extra = sorted(u_set - set(g_set))
            problems.append(f"set: gio-only {missing}, uti-only {extra}")
        if g_default != u_default and not (g_default in removed and u_default == next(
                (c["id"] for c in cands if in_chain(c) and c["id"] not in removed), None)):
            problems.append(f"default: gio {g_default}, uti {u_default}")
        # Each list takes its turn (its defaults, then its additions) before
        # the next: the order of what both list must agree.
        u_order = [c["id"] for c in cands if c["id"] in g_set and c["id"] not in removed]
        g_order = [i for i in g_set if i in u_order]
        if not problems and u_order != g_order:
            problems.append(f"order: gio {g_order}, uti {u_order}")
        if problems:
            mismatches.append(f"{label} {mime}: " + "; ".join(problems))
        else:
            agreed += 1
            if u_extra:
                explained += 1
    print(f"{label}: {len(types)} MIME types, {agreed} agree "
          f"({explained} of them with applications uti adds through supertypes or user defaults), "
          f"{len(mismatches)} mismatches")
    for line in mismatches:
        print("  " + line)
    return not mismatches


FIXTURE = {
    "applications/viewer.desktop": "Name=Viewer\nExec=true %U\nMimeType=image/png;image/jpeg;image/gif;\n",
    "applications/paint.desktop": "Name=Paint\nExec=true %f\nMimeType=image/png;\n",
    "applications/kde/okular.desktop": "Name=Okular\nExec=true %U\nMimeType=application/pdf;image/png;\n",
    "applications/editor.desktop": "Name=Editor\nExec=true %F\nMimeType=text/plain;\n",
    "applications/pyedit.desktop": "Name=PyEdit\nExec=true %F\nMimeType=text/x-python;\nNoDisplay=true\n",
    "applications/hidden.desktop": "Name=Hidden\nExec=true %f\nMimeType=text/plain;\nHidden=true\n",
    "applications/tryexec.desktop": "Name=Gone\nTryExec=uti-no-such-program\nExec=true %f\nMimeType=text/plain;\n",
    "applications/noexec.desktop": "Name=NoExec\nExec=/nonexistent/bin %f\nMimeType=text/plain;\n",
    "applications/hex.desktop": "Name=Hex\nExec=true %f\nMimeType=application/octet-stream;\n",
    "applications/browser.desktop": "Name=Browser\nExec=true %u\nMimeType=text/html;application/xhtml+xml;\n",
    "applications/mimeapps.list": "[Added Associations]\ntext/markdown=browser.desktop;\n"
                                  "[Removed Associations]\nimage/png=paint.desktop;\n"
                                  "[Default Applications]\nimage/gif=viewer.desktop;\n",
}
USER_FIXTURE = {
    "mimeapps.list": "[Default Applications]\napplication/pdf=viewer.desktop;\ntext/x-csrc=browser.desktop;\n"
                     "image/gif=editor.desktop;\n"
                     "[Added Associations]\nimage/gif=editor.desktop;hex.desktop;\n"
                     "[Removed Associations]\ntext/x-python=editor.desktop;\n",
    "gnome-mimeapps.list": "[Default Applications]\nimage/jpeg=paint.desktop;\n",
}


def build_fixture(root):
    entries = {rel: body if rel.endswith(".list") else "[Desktop Entry]\nType=Application\n" + body
               for rel, body in FIXTURE.items()}
    return gio_fixture.build_tree(root, entries, USER_FIXTURE)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--uti", default=None)
    parser.add_argument("--machine-only", action="store_true")
    parser.add_argument("--fixture-only", action="store_true")
    args = parser.parse_args()
    for tool in ["gio"] + ([] if args.machine_only else ["update-desktop-database"]):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is missing (apt-get update && apt-get install libglib2.0-bin desktop-file-utils)")
    uti = gio_fixture.uti_binary(args.uti)
    ok = True
    if not args.fixture_only:
        ok &= compare("machine", uti, dict(os.environ))
    if not args.machine_only:
        with tempfile.TemporaryDirectory(prefix="uti-gio-") as root:
            ok &= compare("fixture", uti, build_fixture(root))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
