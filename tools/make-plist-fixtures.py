#!/usr/bin/env python3
"""Writes the binary property list fixtures under Tests/PropertyListsTests/Fixtures.

usage: tools/make-plist-fixtures.py

Well-formed files come from plistlib; hostile ones are assembled byte by byte.
"""
import datetime
import os
import plistlib
import struct

from bplist_assembly import assemble

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests/PropertyListsTests/Fixtures")


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    sample = {
        "string": "héllo wörld ✓",
        "ascii": "plain",
        "integer": -42,
        "big": 2**62,
        "real": 2.5,
        "yes": True,
        "no": False,
        "date": datetime.datetime(2020, 5, 17, 12, 30, 0),
        "data": b"\x00\x01\xfe\xff",
        "array": ["a", 1, ["nested"]],
        "dict": {"k": "v"},
    }
    write("all-types.bplist", plistlib.dumps(sample, fmt=plistlib.FMT_BINARY, sort_keys=False))
    cookbook = {
        "CFBundleIdentifier": "com.example.cookbook",
        "UTExportedTypeDeclarations": [{
            "UTTypeIdentifier": "com.example.cookbookfile",
            "UTTypeDescription": "Cookbook recipe",
            "UTTypeConformsTo": ["public.text"],
            "UTTypeTagSpecification": {"public.filename-extension": "cookbook",
                                       "public.mime-type": ["application/x-cookbook"]},
        }],
    }
    write("cookbook-binary-Info.plist", plistlib.dumps(cookbook, fmt=plistlib.FMT_BINARY))
    # The facts of Data/CoreTypes.plist as one real-sized bplist00: plistlib
    # writes each repeated string once and names it from every place it
    # occurs, as Apple's writer does for CoreTypes' own Info.plist.
    with open(os.path.join(ROOT, "Data/CoreTypes.plist"), "rb") as f:
        coretypes = plistlib.load(f)
    write("coretypes.bplist", plistlib.dumps(coretypes, fmt=plistlib.FMT_BINARY, sort_keys=False))
    # An array that contains itself.
    write("cyclic.bplist", assemble([b"\xa1\x00"]))
    # A dictionary referenced twice from an array.
    write("shared-container.bplist", assemble([b"\xa2\x01\x01", b"\xd0"]))
    # An integer of 16 bytes with the high half set.
    write("int128.bplist", assemble([b"\x14" + (1).to_bytes(8, "big") + bytes(8)]))
    # A date that is NaN.
    write("nan-date.bplist", assemble([b"\x33" + struct.pack(">d", float("nan"))]))
    # An offset table entry that points past the objects.
    data = bytearray(assemble([b"\x51a"]))
    data[-32 - 1] = 0xF0
    write("bad-offset.bplist", bytes(data))
    # A string whose length runs past the end.
    write("long-string.bplist", assemble([b"\x5f\x10\xff" + b"abc"]))
    # A valid file cut short.
    whole = plistlib.dumps(sample, fmt=plistlib.FMT_BINARY)
    write("truncated.bplist", whole[: len(whole) // 2])
    # Deep nesting: 200 arrays, each holding the next.
    objects = [bytes([0xA1, i + 1]) for i in range(199)] + [b"\xa0"]
    write("deep.bplist", assemble(objects, offset_size=2))
    # A dictionary key that is a number.
    write("number-key.bplist", assemble([b"\xd1\x01\x02", b"\x10\x05", b"\x51a"]))


if __name__ == "__main__":
    main()
