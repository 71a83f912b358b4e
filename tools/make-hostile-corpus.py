#!/usr/bin/env python3
"""Writes the hostile input corpus under Tests/HostileInputTests/Corpus.

usage: tools/make-hostile-corpus.py

Every file is made here on purpose, byte by byte where the format is binary.
`@CANARY@` and `@PORT@` in a file are replaced by the tests with a file they
watch and a local port they listen on, to prove that nothing outside the
document is read. HostileInputTests.swift says what each file must give.
"""
import os
import struct

from bplist_assembly import assemble

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests/HostileInputTests/Corpus")

PLIST_HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
              '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n')
MIME_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'
NS = 'xmlns="http://www.freedesktop.org/standards/shared-mime-info"'


def write(path, data):
    full = os.path.join(OUT, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def laughs(root):
    lines = ['<!ENTITY lol0 "lol">']
    for i in range(1, 10):
        lines.append(f'<!ENTITY lol{i} "' + f"&lol{i - 1};" * 10 + '">')
    return f'<!DOCTYPE {root} [\n ' + "\n ".join(lines) + "\n]>\n"


def quadratic(root):
    return f'<!DOCTYPE {root} [\n <!ENTITY a "' + "a" * 20000 + '">\n]>\n'


# MARK: XML property lists

def xml_plists():
    write("xml-plist/external-entity.plist",
          '<?xml version="1.0"?>\n<!DOCTYPE plist [\n <!ENTITY secret SYSTEM "file://@CANARY@">\n]>\n'
          '<plist version="1.0"><string>&secret;</string></plist>\n')
    write("xml-plist/external-parameter-entity.plist",
          '<?xml version="1.0"?>\n<!DOCTYPE plist [\n <!ENTITY % remote SYSTEM "http://127.0.0.1:@PORT@/evil.dtd">\n %remote;\n]>\n'
          '<plist version="1.0"><string>x</string></plist>\n')
    write("xml-plist/external-dtd-file.plist",
          '<?xml version="1.0"?>\n<!DOCTYPE plist SYSTEM "file://@CANARY@">\n<plist version="1.0"><string>kept</string></plist>\n')
    write("xml-plist/external-dtd-network.plist",
          '<?xml version="1.0"?>\n<!DOCTYPE plist SYSTEM "http://127.0.0.1:@PORT@/plist.dtd">\n'
          '<plist version="1.0"><string>kept</string></plist>\n')
    write("xml-plist/xinclude.plist",
          '<?xml version="1.0"?>\n<plist version="1.0" xmlns:xi="http://www.w3.org/2001/XInclude">\n'
          '<xi:include href="file://@CANARY@" parse="text"/>\n</plist>\n')
    write("xml-plist/billion-laughs.plist", '<?xml version="1.0"?>\n' + laughs("plist") + "<plist><string>&lol9;</string></plist>\n")
    write("xml-plist/quadratic-blowup.plist",
          '<?xml version="1.0"?>\n' + quadratic("plist") + "<plist><string>" + "&a;" * 20000 + "</string></plist>\n")
    write("xml-plist/deep-nesting.plist", PLIST_HEAD + "<plist>" + "<array>" * 10000 + "</array>" * 10000 + "</plist>\n")
    write("xml-plist/huge-integer.plist", PLIST_HEAD + "<plist><integer>184467440737095516160</integer></plist>\n")
    write("xml-plist/negative-overflow.plist", PLIST_HEAD + "<plist><integer>-9223372036854775809</integer></plist>\n")
    write("xml-plist/bad-date.plist", PLIST_HEAD + "<plist><date>NaN</date></plist>\n")
    write("xml-plist/invalid-utf8.plist", PLIST_HEAD.encode() + b"<plist><string>caf\xc3\x28 \xff</string></plist>\n")
    write("xml-plist/invalid-utf16.plist",
          "\ufeff".encode("utf-16-le") + '<?xml version="1.0" encoding="UTF-16"?>\n<plist><string>'.encode("utf-16-le")
          + b"\x00\xd8" + b"A\x00" + "</string></plist>\n".encode("utf-16-le"))
    write("xml-plist/truncated.plist", PLIST_HEAD + "<plist><dict><key>UTExportedTypeDeclarations</key><array><dict><key>UTTypeIden")


# MARK: Binary property lists

def binary_plists():
    ascii_ok = b"\x53hello"
    write("binary-plist/object-count-huge.bplist", assemble([ascii_ok], count=2**62))
    write("binary-plist/offset-table-past-end.bplist", assemble([ascii_ok], table=2**40))
    write("binary-plist/object-offset-past-end.bplist", assemble([ascii_ok], offsets=[250]))
    write("binary-plist/offset-into-trailer.bplist", assemble([ascii_ok], offsets=[16]))
    write("binary-plist/ref-size-zero.bplist", assemble([b"\xa1\x00", ascii_ok], ref_size=0))
    write("binary-plist/offset-size-nine.bplist", assemble([ascii_ok], offset_size=9))
    write("binary-plist/string-past-end.bplist", assemble([b"\x5f\x13\x7f\xff\xff\xffabc"]))
    write("binary-plist/length-past-64-bits.bplist", assemble([b"\x5f\x14" + b"\xff" * 16]))
    write("binary-plist/array-count-huge.bplist", assemble([b"\xaf\x13\x0f\xff\xff\xff\xff\xff\xff\xff"]))
    write("binary-plist/self-containing-array.bplist", assemble([b"\xa1\x00"]))
    write("binary-plist/dictionary-cycle.bplist", assemble([b"\xd1\x01\x02", b"\x51k", b"\xa1\x00"]))
    write("binary-plist/invalid-utf16.bplist", assemble([b"\x61\xd8\x00"]))
    write("binary-plist/ascii-string-high-bytes.bplist", assemble([b"\x53a\xffb"]))
    write("binary-plist/integer-past-64-bits.bplist", assemble([b"\x14" + b"\x7f" + b"\xff" * 15]))
    write("binary-plist/nan-date.bplist", assemble([b"\x33" + struct.pack(">d", float("nan"))]))
    write("binary-plist/infinite-real.bplist", assemble([b"\x23" + struct.pack(">d", float("inf"))]))
    write("binary-plist/unknown-marker.bplist", assemble([b"\x70"]))
    write("binary-plist/top-object-out-of-range.bplist", assemble([ascii_ok], top=7))
    deep = [bytes([0xA1, i + 1]) for i in range(200)] + [ascii_ok]
    write("binary-plist/deep-nesting.bplist", assemble(deep, offset_size=2))
    write("binary-plist/truncated-trailer.bplist", assemble([ascii_ok])[:-5])


# MARK: shared-mime-info packages

def package(body, head=""):
    return MIME_HEAD + head + f"<mime-info {NS}>\n" + body + "</mime-info>\n"


def mime_packages():
    write("mime-package/external-entity.xml",
          MIME_HEAD + '<!DOCTYPE mime-info [\n <!ENTITY secret SYSTEM "file://@CANARY@">\n]>\n'
          + f'<mime-info {NS}>\n<mime-type type="text/x-secret"><comment>&secret;</comment></mime-type>\n</mime-info>\n')
    write("mime-package/external-dtd-network.xml",
          MIME_HEAD + '<!DOCTYPE mime-info SYSTEM "http://127.0.0.1:@PORT@/mime.dtd">\n'
          + f'<mime-info {NS}>\n<mime-type type="text/x-kept"><glob pattern="*.kept"/></mime-type>\n</mime-info>\n')
    write("mime-package/xinclude.xml",
          MIME_HEAD + f'<mime-info {NS} xmlns:xi="http://www.w3.org/2001/XInclude">\n'
          '<mime-type type="text/x-inc"><xi:include href="file://@CANARY@"/><glob pattern="*.inc"/></mime-type>\n</mime-info>\n')
    write("mime-package/billion-laughs.xml",
          MIME_HEAD + laughs("mime-info") + f'<mime-info {NS}><mime-type type="text/x-lol"><comment>&lol9;</comment></mime-type></mime-info>\n')
    write("mime-package/quadratic-blowup.xml",
          MIME_HEAD + quadratic("mime-info") + f'<mime-info {NS}><mime-type type="text/x-a"><comment>'
          + "&a;" * 20000 + "</comment></mime-type></mime-info>\n")
    write("mime-package/deep-magic.xml", package(
        '<mime-type type="application/x-deep"><magic priority="50">'
        + '<match type="string" offset="0" value="a">' * 5000 + "</match>" * 5000 + "</magic><glob pattern=\"*.deep\"/></mime-type>\n"))
    write("mime-package/huge-numbers.xml", package(
        '<mime-type type="application/x-huge">\n'
        '<magic priority="99999999999999999999"><match type="string" offset="0:99999999999999999999" value="x"/></magic>\n'
        '<magic priority="-5"><match type="big32" offset="-1" value="0x1ffffffff"/></magic>\n'
        '<glob pattern="*.huge" weight="-1"/>\n<glob pattern="*.huger" weight="1000000"/>\n'
        '<glob pattern="*.ok"/>\n</mime-type>\n'))
    write("mime-package/huge-offsets.xml", package(
        '<mime-type type="application/x-far">\n'
        '<magic><match type="string" offset="0:99999999999999999999" value="x"/></magic>\n'
        '<magic><match type="big32" offset="-1" value="0x1ffffffff"/></magic>\n'
        '<magic><match type="string" offset="4294967296" value="x"/></magic>\n'
        '<glob pattern="*.far"/>\n</mime-type>\n'))
    write("mime-package/backtracking-glob.xml", package(
        '<mime-type type="application/x-stars"><glob pattern="' + "*a" * 200 + '*b"/><glob pattern="*.stars"/></mime-type>\n'))
    write("mime-package/subclass-cycle.xml", package(
        '<mime-type type="application/x-one"><sub-class-of type="application/x-two"/><glob pattern="*.one"/></mime-type>\n'
        '<mime-type type="application/x-two"><sub-class-of type="application/x-one"/><glob pattern="*.two"/></mime-type>\n'
        '<mime-type type="application/x-self"><sub-class-of type="application/x-self"/></mime-type>\n'))
    write("mime-package/invalid-utf8.xml", package(
        '<mime-type type="text/x-bad"><comment>caf\xc3\x28</comment></mime-type>\n').encode("latin-1"))
    write("mime-package/truncated.xml", package('<mime-type type="text/x-cut"><glob pattern="*.cut"/></mime-type>\n')[:-40])


# MARK: mime.cache

def cache(sections, major=1, minor=2, last=None):
    """A mime.cache whose nine header offsets point at the given sections,
    laid out after the header in order (section `last` at the very end). A
    section is a byte blob, a function from its offset to a blob, or a raw
    offset."""
    body = b""
    offsets = [0] * 9
    order = [i for i in range(9) if i != last] + ([last] if last is not None else [])
    for i in order:
        section = sections[i]
        if isinstance(section, int):
            offsets[i] = section
            continue
        at = 40 + len(body)
        offsets[i] = at
        body += section(at) if callable(section) else section
    return struct.pack(">HH", major, minor) + b"".join(struct.pack(">I", o) for o in offsets) + body


def mime_caches():
    empties = [struct.pack(">I", 0) for _ in range(9)]
    empties[3] = struct.pack(">II", 0, 0)  # suffix tree: no roots
    empties[5] = struct.pack(">III", 0, 0, 0)  # magic: no matches
    write("mime-cache/wrong-version.cache", cache(empties, major=2, minor=0))
    write("mime-cache/truncated-header.cache", cache(empties)[:30])
    write("mime-cache/offset-past-end.cache", cache([0xFFFFFF00] + empties[1:]))
    write("mime-cache/alias-count-huge.cache", cache([struct.pack(">I", 0x7FFFFFFF)] + empties[1:]))
    # The last alias's strings run to the end of the file with no terminator.
    write("mime-cache/string-past-end.cache",
          cache([lambda at: struct.pack(">III", 1, at + 12, at + 12) + b"text/unterminated"] + empties[1:], last=0))
    # A suffix tree node whose only child is itself.
    write("mime-cache/cyclic-suffix-tree.cache",
          cache(empties[:3] + [lambda at: struct.pack(">II", 1, at + 8) + struct.pack(">III", ord("a"), 1, at + 8)] + empties[4:]))

    # A magic match whose only matchlet has itself as its child.
    def magic(at):
        match_at, matchlet_at, mime_at = at + 12, at + 28, at + 60
        return (struct.pack(">III", 1, 8, match_at)
                + struct.pack(">IIII", 50, mime_at, 1, matchlet_at)
                # range 0+1, word size 1, one byte of value at mime_at, no mask, one child: itself
                + struct.pack(">IIIIIIII", 0, 1, 1, 1, mime_at, 0, 1, matchlet_at)
                + b"text/x-loop\0")
    write("mime-cache/cyclic-matchlet.cache", cache(empties[:5] + [magic] + empties[6:]))
    # 20,000 aliases that all name one 100 KB string.
    count = 20000
    write("mime-cache/shared-long-string.cache",
          cache([lambda at: struct.pack(">I", count) + struct.pack(">II", at + 4 + 8 * count, at + 4 + 8 * count) * count
                 + b"a/" + b"b" * 100000 + b"\0"] + empties[1:]))


# MARK: mime.types and desktop entries

def text_files():
    write("mime-types/hostile.types",
          b"# comment\n"
          b"text/plain txt\n"
          b"not-a-type foo\n"
          b"image/\xff\xfe bad\n"
          b"application/x-ok ok .dotted a/b\n"
          b"\x00\x00\x00\n"
          + b"application/x-long " + b"x" * 100000 + b"\n")
    write("desktop-entry/broken-field-codes.desktop",
          "[Desktop Entry]\nType=Application\nName=Broken\nExec=viewer %z --file %\nMimeType=image/png;\n")
    write("desktop-entry/unterminated-quote.desktop",
          '[Desktop Entry]\nType=Application\nName=Quote\nExec=viewer %f "--title=unterminated\nMimeType=image/png;\n')
    write("desktop-entry/field-code-in-quotes.desktop",
          '[Desktop Entry]\nType=Application\nName=Quoted\nExec=viewer "%f"\n')
    write("desktop-entry/two-file-lists.desktop",
          "[Desktop Entry]\nType=Application\nName=Twice\nExec=viewer %F %U\n")
    write("desktop-entry/bad-escape.desktop",
          "[Desktop Entry]\nType=Application\nName=Esc\\qape\nExec=viewer %f\nMimeType=text/plain\\\n")
    write("desktop-entry/not-utf8.desktop", b"[Desktop Entry]\nType=Application\nName=caf\xe9\nExec=viewer %f\n")
    write("desktop-entry/garbage-lines.desktop",
          b"[Desktop Entry\nno equals sign here\n[Desktop Entry]\n=empty key\nKey[=x\nType=Application\nExec=viewer %f\x00\n")
    write("desktop-entry/mimeapps.list",
          "[Default Applications]\ntext/plain=viewer.desktop;\\q;\n[Added Associations]\nimage/png=a.desktop;b.desktop\\\n")


# MARK: type declarations

def declarations():
    write("declarations/conformance-cycle.plist", PLIST_HEAD + """<plist version="1.0"><dict>
<key>UTExportedTypeDeclarations</key><array>
 <dict><key>UTTypeIdentifier</key><string>com.example.a</string>
  <key>UTTypeConformsTo</key><array><string>com.example.b</string></array></dict>
 <dict><key>UTTypeIdentifier</key><string>com.example.b</string>
  <key>UTTypeConformsTo</key><array><string>com.example.a</string></array></dict>
 <dict><key>UTTypeIdentifier</key><string>com.example.self</string>
  <key>UTTypeConformsTo</key><array><string>com.example.self</string></array></dict>
</array></dict></plist>
""")


def main():
    xml_plists()
    binary_plists()
    mime_packages()
    mime_caches()
    text_files()
    declarations()


if __name__ == "__main__":
    main()
