"""Assembles `bplist00` files byte by byte, for test fixtures that plistlib
cannot write (damaged tables, cycles, oversized counts).

Objects are raw encodings; references inside them are object indexes. Every
trailer field can be overridden so that a file can lie about itself.
"""
import struct


def assemble(objects, top=0, ref_size=1, offset_size=1, count=None, table=None, offsets=None):
    """A bplist00 holding `objects` in order, then the offset table, then the
    trailer. `count`, `table` and `offsets` replace the true object count,
    offset-table position and offsets when given."""
    body = b"bplist00"
    true_offsets = []
    for obj in objects:
        true_offsets.append(len(body))
        body += obj
    table_at = len(body)
    for off in (offsets if offsets is not None else true_offsets):
        body += off.to_bytes(offset_size, "big")
    body += bytes(6) + bytes([offset_size, ref_size])
    body += struct.pack(">QQQ", len(objects) if count is None else count, top,
                        table_at if table is None else table)
    return body
