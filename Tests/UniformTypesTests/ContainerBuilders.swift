/// Containers built byte by byte for ContainerFormatTests.
enum ContainerBytesBuilder {
    static func le(_ value: Int, _ width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
    static func be(_ value: Int, _ width: Int) -> [UInt8] { le(value, width).reversed() }

    /// A ZIP entry: its name and stored (uncompressed) data.
    struct Entry {
        var name: String
        var data: [UInt8] = []
        /// Sizes left out of the local header, a data descriptor after the data.
        var descriptor = false
    }

    /// A ZIP archive of stored entries; without `directory`, only the local
    /// headers and data (as a prefix of standard input would hold them).
    /// With `zip64`, the directory is found through a ZIP64 record; `comment`
    /// follows the end record.
    static func zip(
        _ entries: [Entry], directory: Bool = true, prefix: [UInt8] = [], zip64: Bool = false, comment: [UInt8] = []
    ) -> [UInt8] {
        var out = prefix
        var central: [UInt8] = []
        for entry in entries {
            let name = Array(entry.name.utf8)
            let offset = out.count - prefix.count
            let crc = 0
            let size = entry.descriptor ? 0 : entry.data.count
            out += [0x50, 0x4B, 0x03, 0x04] + le(20, 2) + le(entry.descriptor ? 8 : 0, 2) + le(0, 2) + le(0, 4)
            out += le(crc, 4) + le(size, 4) + le(size, 4) + le(name.count, 2) + le(0, 2) + name + entry.data
            if entry.descriptor {
                out += [0x50, 0x4B, 0x07, 0x08] + le(crc, 4) + le(entry.data.count, 4) + le(entry.data.count, 4)
            }
            central += [0x50, 0x4B, 0x01, 0x02] + le(20, 2) + le(20, 2) + le(0, 2) + le(0, 2) + le(0, 4)
            central += le(crc, 4) + le(entry.data.count, 4) + le(entry.data.count, 4) + le(name.count, 2)
            central += le(0, 2) + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(offset, 4) + name
        }
        guard directory else { return out }
        let start = out.count - prefix.count
        out += central
        if zip64 {
            let record = out.count - prefix.count
            out += [0x50, 0x4B, 0x06, 0x06] + le(44, 8) + le(45, 2) + le(45, 2) + le(0, 4) + le(0, 4)
            out += le(entries.count, 8) + le(entries.count, 8) + le(central.count, 8) + le(start, 8)
            out += [0x50, 0x4B, 0x06, 0x07] + le(0, 4) + le(record, 8) + le(1, 4)
            out += end(count: 0xFFFF, size: 0xFFFF_FFFF, offset: 0xFFFF_FFFF, comment: comment)
        } else {
            out += end(count: entries.count, size: central.count, offset: start, comment: comment)
        }
        return out
    }

    /// An end-of-central-directory record.
    static func end(count: Int, size: Int, offset: Int, comment: [UInt8] = []) -> [UInt8] {
        [0x50, 0x4B, 0x05, 0x06] + le(0, 2) + le(0, 2) + le(count, 2) + le(count, 2) + le(size, 4) + le(offset, 4)
            + le(comment.count, 2) + comment
    }

    static let endOfChain = 0xFFFF_FFFE
    static let free = 0xFFFF_FFFF

    /// A Compound File whose root has `classID` and the streams `names`, in
    /// directory sectors 1..., the allocation table in sector 0.
    static func compoundFile(
        names: [String], classID: [UInt8] = Array(repeating: 0, count: 16), shift: Int = 9,
        statedShift: Int? = nil, loop: Bool = false, firstDirectory: Int = 1
    ) -> [UInt8] {
        let sectorSize = 1 << shift
        let perSector = sectorSize / 128
        let count = 1 + names.count
        let directorySectors = (count + perSector - 1) / perSector
        var header = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1] + [UInt8](repeating: 0, count: 16)
        header += le(0x3E, 2) + le(shift == 12 ? 4 : 3, 2) + [0xFE, 0xFF] + le(statedShift ?? shift, 2) + le(6, 2)
        header += [UInt8](repeating: 0, count: 6) + le(shift == 12 ? directorySectors : 0, 4) + le(1, 4)
        header += le(firstDirectory, 4) + le(0, 4) + le(4096, 4) + le(endOfChain, 4) + le(0, 4)
        header += le(endOfChain, 4) + le(0, 4) + le(0, 4)
        for _ in 1..<109 { header += le(free, 4) }
        header += [UInt8](repeating: 0, count: sectorSize - header.count)
        var fat = le(0xFFFF_FFFD, 4)
        for s in 1...directorySectors {
            fat += le(s == directorySectors ? (loop ? 1 : endOfChain) : s + 1, 4)
        }
        fat += [UInt8](repeating: 0xFF, count: sectorSize - fat.count)
        var directory: [UInt8] = []
        for i in 0..<count {
            let name = i == 0 ? "Root Entry" : names[i - 1]
            let units = Array(name.utf16.prefix(31))
            var entry = units.flatMap { le(Int($0), 2) }
            entry += [UInt8](repeating: 0, count: 64 - entry.count)
            entry += le(units.count * 2 + 2, 2) + [i == 0 ? 5 : 2, 1]
            entry +=
                le(free, 4) + le(i == 0 || i == count - 1 ? free : i + 1, 4) + le(i == 0 && count > 1 ? 1 : free, 4)
            entry += i == 0 ? classID : [UInt8](repeating: 0, count: 16)
            entry += [UInt8](repeating: 0, count: 128 - entry.count)
            directory += entry
        }
        directory += [UInt8](repeating: 0, count: directorySectors * sectorSize - directory.count)
        return header + fat + directory
    }

    /// The stored bytes of `{XXXXXXXX-0000-0000-C000-000000000046}`.
    static func classID(_ first: Int) -> [UInt8] { le(first, 4) + [0, 0, 0, 0, 0xC0, 0, 0, 0, 0, 0, 0, 0x46] }

    /// An EBML header naming `docType`, and the start of a segment.
    static func ebml(docType: String) -> [UInt8] {
        let name = Array(docType.utf8)
        let body =
            [0x42, 0x86, 0x81, 0x01] + [0x42, 0x82, UInt8(0x80 | name.count)] + name + [0x42, 0x87, 0x81, 0x04]
        return [0x1A, 0x45, 0xDF, 0xA3, UInt8(0x80 | body.count)] + body + [0x18, 0x53, 0x80, 0x67, 0x01, 0xFF]
    }

    /// An `ftyp` box of `major` and `compatible` brands, then a `free` box.
    static func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
        let brands = compatible.flatMap { Array($0.utf8) }
        return be(16 + brands.count, 4) + Array("ftyp".utf8) + Array(major.utf8) + le(0, 4) + brands + be(8, 4)
            + Array("free".utf8)
    }

    /// A RIFF (or, with `"FORM"`, IFF) header of `form` and one empty chunk.
    static func riff(_ form: String, magic: String = "RIFF") -> [UInt8] {
        let size = magic == "RIFF" ? le(12, 4) : be(12, 4)
        return Array(magic.utf8) + size + Array(form.utf8) + Array("data".utf8) + le(0, 4)
    }
}
