#!/usr/bin/env python3
"""Compares `uti open-in` for URL schemes with GIO: the default
(`g_app_info_get_default_for_uri_scheme`) and the applications GIO lists
for `x-scheme-handler/SCHEME` (`g_app_info_get_all_for_type`), through
tools/gio/gio-content-type.

It runs twice: on this machine's desktop entries and lists, and on a fixture
XDG tree with several browsers and mail clients (a subfolder entry, Hidden,
NoDisplay, a TryExec that is missing, a scheme written in capitals),
defaults (one naming an application that is not installed), an added
association, removals, and a desktop-specific list. GLib reads associations
only from `mimeinfo.cache`, so the fixture's cache is made with
update-desktop-database (Debian: desktop-file-utils).

A difference is "explained" when uti leaves out an application that a
mimeapps.list removes from the desktop entries of its own folder (the MIME
apps spec says removals apply to "desktop files in the current directory, or
a later one"; GLib 2.74 applies them only to later ones), when an
application is only a user default (GLib lists defaults apart from
registered applications), or when an application writes the scheme's MIME
type in capitals (X-Scheme-Handler/IRC): MIME types are case-insensitive
(RFC 2045) and uti matches them so, while GLib looks the written string up
as it is. Anything else is a mismatch; the exit status is 1
when there is one.

Usage: tools/compare-gio-schemes.py [--uti PATH] [--machine-only | --fixture-only]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import gio_fixture

ROOT = gio_fixture.ROOT

# Schemes asked about everywhere, claimed or not.
COMMON = ["http", "https", "mailto", "ftp", "sftp", "ssh", "irc", "magnet", "tel", "gopher", "webcal"]


def gio_answers(helper, schemes, env):
    run = subprocess.run([helper, "schemes"], input="\n".join(schemes) + "\n", env=env,
                         capture_output=True, text=True, check=True)
    answers = {}
    for line in run.stdout.splitlines():
        default, ids, scheme = line.split("\t")
        answers[scheme] = (None if default == "-" else default, [i for i in ids.split(";") if i])
    return answers


def uti_answers(uti, schemes, env):
    args = [uti, "open-in", "--json"]
    for scheme in schemes:
        args += ["--type", "x-scheme-handler/" + scheme]
    run = subprocess.run(args, env=env, capture_output=True, text=True)
    if run.returncode not in (0, 1):
        sys.exit(f"uti failed ({run.returncode}): {run.stderr.strip()}")
    return {item["scheme"]: item for item in json.loads(run.stdout)}


def claimed_schemes(env):
    """Every scheme the desktop entries and lists of `env` mention."""
    found = set()
    dirs = [env.get("XDG_DATA_HOME", os.path.expanduser("~/.local/share"))]
    dirs += env.get("XDG_DATA_DIRS", "/usr/local/share:/usr/share").split(":")
    config = [env.get("XDG_CONFIG_HOME", os.path.expanduser("~/.config"))] + env.get("XDG_CONFIG_DIRS", "/etc/xdg").split(":")
    files = []
    for d in dirs:
        for base, _, names in os.walk(os.path.join(d, "applications")):
            files += [os.path.join(base, n) for n in names if n.endswith((".desktop", ".list", ".cache"))]
    for d in config:
        if os.path.isdir(d):
            files += [os.path.join(d, n) for n in os.listdir(d) if n.endswith("mimeapps.list")]
    for path in files:
        try:
            text = open(path, encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        for word in text.replace(";", "\n").replace("=", "\n").split():
            if word.lower().startswith("x-scheme-handler/"):
                found.add(word.split("/", 1)[1].lower())
            elif word.lower().startswith("mimetype=x-scheme-handler/"):
                found.add(word.split("/", 1)[1].lower())
    return sorted(found)


def compare(label, uti, helper, env):
    schemes = sorted(set(COMMON) | set(claimed_schemes(env)))
    gio = gio_answers(helper, schemes, env)
    answers = uti_answers(uti, schemes, env)
    mismatches, explained, agreed = [], 0, 0
    for scheme in schemes:
        g_default, g_set = gio[scheme]
        item = answers[scheme]
        cands = item["candidates"]
        defaults_only = {c["id"] for c in cands if c["claim"] == "default"}
        u_set = {c["id"] for c in cands if c["claim"] != "default"}
        u_default = cands[0]["id"] if cands else None
        removed = {e["id"] for e in item["excluded"] if e["claim"] == "removed"}
        capitals = {c["id"] for c in cands if c["claim"] != "default" and c["declares"] != c["declares"].lower()}
        problems = []
        if u_set - capitals != set(g_set) - defaults_only - removed:
            problems.append(f"set: gio-only {sorted(set(g_set) - defaults_only - removed - u_set)}, "
                            f"uti-only {sorted(u_set - capitals - set(g_set))}")
        alternative = next((c["id"] for c in cands if c["id"] not in removed), None)
        seen_by_gio = next((c["id"] for c in cands if c["id"] not in capitals), None)
        if g_default != u_default and not (g_default in removed and u_default == alternative) \
                and not (u_default in capitals and g_default == seen_by_gio):
            problems.append(f"default: gio {g_default}, uti {u_default}")
        if problems:
            mismatches.append(f"{label} {scheme}: " + "; ".join(problems))
        else:
            agreed += 1
            if (removed & set(g_set)) or (defaults_only - set(g_set)) or capitals:
                explained += 1
    print(f"{label}: {len(schemes)} schemes, {agreed} agree ({explained} of them explained: a removal GLib keeps, "
          f"a default GLib lists apart, or a scheme written in capitals), {len(mismatches)} mismatches")
    for line in mismatches:
        print("  " + line)
    return not mismatches


def entry(name, exec_line, schemes, extra=""):
    mime = "".join(f"x-scheme-handler/{s};" if "/" not in s else f"{s};" for s in schemes)
    return f"[Desktop Entry]\nType=Application\nName={name}\nExec={exec_line}\nMimeType={mime}\n{extra}"


FIXTURE = {
    "applications/firefox.desktop": entry("Firefox", "true %u", ["http", "https", "ftp", "text/html"]),
    "applications/chromium.desktop": entry("Chromium", "true %U", ["http", "https", "webcal"]),
    "applications/epiphany.desktop": entry("Web", "true %u", ["http", "https"], "NoDisplay=true\n"),
    "applications/kde/falkon.desktop": entry("Falkon", "true %u", ["https", "sftp", "X-Scheme-Handler/IRC"]),
    "applications/thunderbird.desktop": entry("Thunderbird", "true %u", ["mailto", "webcal"]),
    "applications/evolution.desktop": entry("Evolution", "true %U", ["mailto"], "TryExec=uti-no-such-program\n"),
    "applications/mutt.desktop": entry("Mutt", "true %u", ["mailto"], "Hidden=true\n"),
    "applications/filezilla.desktop": entry("FileZilla", "true %f", ["ftp", "sftp"]),
    "applications/ssh-client.desktop": entry("SSH", "true %u", ["ssh"]),
    "applications/transmission.desktop": entry("Transmission", "true %U", ["magnet"]),
    "applications/mimeapps.list": "[Added Associations]\nx-scheme-handler/tel=chromium.desktop;\n"
                                  "[Removed Associations]\nx-scheme-handler/ssh=ssh-client.desktop;\n",
}
USER_FIXTURE = {
    "mimeapps.list": "[Default Applications]\nx-scheme-handler/https=chromium.desktop;\n"
                     "x-scheme-handler/mailto=thunderbird.desktop;\n"
                     "x-scheme-handler/ftp=not-installed.desktop;filezilla.desktop;\n"
                     "[Added Associations]\nx-scheme-handler/magnet=firefox.desktop;\n"
                     "[Removed Associations]\nx-scheme-handler/http=epiphany.desktop;\nx-scheme-handler/webcal=chromium.desktop;\n",
    "gnome-mimeapps.list": "[Default Applications]\nx-scheme-handler/sftp=kde-falkon.desktop;\n",
}


def build_fixture(root):
    return gio_fixture.build_tree(root, FIXTURE, USER_FIXTURE)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--uti", default=None)
    parser.add_argument("--machine-only", action="store_true")
    parser.add_argument("--fixture-only", action="store_true")
    args = parser.parse_args()
    if not args.machine_only and shutil.which("update-desktop-database") is None:
        sys.exit("update-desktop-database is missing (apt-get update && apt-get install desktop-file-utils)")
    helper = subprocess.run([os.path.join(ROOT, "tools/gio/build.sh")], check=True,
                            capture_output=True, text=True).stdout.strip()
    uti = gio_fixture.uti_binary(args.uti)
    ok = True
    if not args.fixture_only:
        ok &= compare("machine", uti, helper, dict(os.environ))
    if not args.machine_only:
        with tempfile.TemporaryDirectory(prefix="uti-gio-schemes-") as root:
            ok &= compare("fixture", uti, helper, build_fixture(root))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
