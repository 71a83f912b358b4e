#!/usr/bin/env python3
"""How the system's MIME data meets the bundled declarations, measured
through the `uti` command line:

1. bundled tags whose answer changes when system data is merged (must be 0):
   every extension and MIME type of Data/*.plist, looked up with and
   without --no-system;
2. the share of the system's image/, audio/, video/ and font/ types that
   conform to public.image, public.audio, public.movie or public.font
   (all, for the types made from system data; a bundled declaration that
   claims the MIME type keeps its own conformance);
3. how far each generic-icon mapping of
   Sources/UniformTypes/SystemTypePlacement.swift (and the candidates it
   leaves out) agrees with Apple: for the MIME types with that icon which a
   bundled type claims, the share whose bundled type conforms to the mapped
   type.

Usage: tools/check-system-placement.py [--uti PATH] [--mime-dir /usr/share/mime]
Exit status 1 when (1) is not 0 or (2) is not all.
"""
import argparse
import json
import os
import plistlib
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Mappings measured but not used, so that the report shows why.
CANDIDATES = {
    "text-x-script": "public.script",
    "x-office-document": "public.composite-content",
    "image-x-generic": "public.image",
    "audio-x-generic": "public.audio",
}
MEDIA = {"image": "public.image", "audio": "public.audio", "video": "public.movie", "font": "public.font"}


def lookup(uti, env, queries, *flags):
    """identifier and supertypes of each query, in order (chunks of 500)."""
    answers = []
    for i in range(0, len(queries), 500):
        chunk = queries[i:i + 500]
        out = subprocess.run([uti, *flags, "--json", "--", *chunk], env=env, capture_output=True, text=True)
        for item in json.loads(out.stdout):
            t = item.get("type") or {}
            answers.append((t.get("identifier"), set(t.get("supertypes", [])) | {t.get("identifier")}, t.get("dynamic", True)))
    return answers


def bundled_tags():
    exts, mimes = set(), set()
    for name in ("CoreTypes.plist", "Additions.plist"):
        with open(os.path.join(ROOT, "Data", name), "rb") as f:
            data = plistlib.load(f)
        for key in ("UTExportedTypeDeclarations", "UTImportedTypeDeclarations"):
            for d in data.get(key, []):
                spec = d.get("UTTypeTagSpecification", {})
                for cls, target in (("public.filename-extension", exts), ("public.mime-type", mimes)):
                    v = spec.get(cls, [])
                    for tag in [v] if isinstance(v, str) else v:
                        target.add(tag.lower().lstrip("."))
    return sorted(exts), sorted(mimes)


def icon_mapping():
    text = open(os.path.join(ROOT, "Sources/UniformTypes/SystemTypePlacement.swift")).read()
    block = text[text.index("genericIconRoots"):]
    block = block[block.index("= ["):]
    block = block[:block.index("]")]
    return dict(re.findall(r'"([^"]+)":\s*"([^"]+)"', block))


def system_icons(mime_dir):
    ns = "{http://www.freedesktop.org/standards/shared-mime-info}"
    icons = {}
    packages = os.path.join(mime_dir, "packages")
    for name in sorted(os.listdir(packages)):
        if not name.endswith(".xml"):
            continue
        for t in ET.parse(os.path.join(packages, name)).getroot().iter(ns + "mime-type"):
            g = t.find(ns + "generic-icon")
            if g is not None:
                icons[t.get("type").lower()] = g.get("name")
    return icons


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--uti", default=os.path.join(ROOT, ".build/debug/uti"))
    ap.add_argument("--mime-dir", default="/usr/share/mime")
    args = ap.parse_args()
    env = dict(os.environ, UTI_CACHE_DIR=tempfile.mkdtemp(prefix="uti-placement-"))
    failed = False

    # 1. Bundled tags with and without system data.
    exts, mimes = bundled_tags()
    changed = []
    for kind, tags in (("--as-extension", exts), ("--as-mime", mimes)):
        plain = lookup(args.uti, env, tags, "--no-system", kind)
        merged = lookup(args.uti, env, tags, kind)
        changed += [(tag, a[0], b[0]) for tag, a, b in zip(tags, plain, merged) if a[0] != b[0]]
    print(f"bundled tags: {len(exts)} extensions, {len(mimes)} MIME types; answers changed by system data: {len(changed)}")
    for tag, a, b in changed:
        print(f"  {tag}: {a} without system data, {b} with it")
    failed |= bool(changed)

    # 2. Media types under Apple's abstract types.
    with open(os.path.join(args.mime_dir, "types")) as f:
        types = [t.strip() for t in f if t.split("/")[0] in MEDIA]
    answers = lookup(args.uti, env, types, "--as-mime")
    made = [(t, a) for t, a in zip(types, answers) if a[0].startswith("org.freedesktop.mime.")]
    outside = [(t, a[0]) for t, a in made if MEDIA[t.split("/")[0]] not in a[1]]
    print(f"media types made from system data under Apple's abstract types: {len(made) - len(outside)} of {len(made)}")
    for t, identifier in outside:
        print(f"  {t}: {identifier} does not conform to {MEDIA[t.split('/')[0]]}")
    declared = [(t, a) for t, a in zip(types, answers) if not a[0].startswith("org.freedesktop.mime.")]
    elsewhere = [(t, a[0]) for t, a in declared if MEDIA[t.split("/")[0]] not in a[1]]
    print(f"media types a bundled type claims, under them: {len(declared) - len(elsewhere)} of {len(declared)}"
          + ("; the others as their declarations place them:" if elsewhere else ""))
    for t, identifier in elsewhere:
        print(f"  {t}: {identifier} does not conform to {MEDIA[t.split('/')[0]]}")
    failed |= bool(outside)

    # 3. Generic-icon mappings against Apple's declarations.
    used, icons = icon_mapping(), system_icons(args.mime_dir)
    mapping = {**used, **CANDIDATES}
    known = sorted(t for t, icon in icons.items() if icon in mapping)
    answers = dict(zip(known, lookup(args.uti, env, known, "--no-system", "--as-mime")))
    total_agree = total_known = 0
    print("generic-icon mappings (types a bundled type claims: agreeing / known):")
    for icon, root in mapping.items():
        claimed = [(t, answers[t]) for t in known if icons[t] == icon and not answers[t][2]]
        agree = [t for t, a in claimed if root in a[1]]
        if icon in used:
            total_agree += len(agree)
            total_known += len(claimed)
        share = f"{100 * len(agree) / len(claimed):.0f}%" if claimed else "n/a"
        others = sorted(a[0] for t, a in claimed if root not in a[1])
        label = "" if icon in used else " [not used]"
        print(f"  {icon} -> {root}{label}: {len(agree)} / {len(claimed)} ({share})"
              + (f"; not: {', '.join(others)}" if others else ""))
    if total_known:
        print(f"  mappings used: {total_agree} / {total_known} ({100 * total_agree / total_known:.0f}%)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
