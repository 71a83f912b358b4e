/// Names the document a Compound File Binary (OLE2) file holds, from its
/// directory: the root entry's class identifier (MSI and its patches and
/// transforms) and the names of the streams directly under the root
/// (`WordDocument`, `Workbook` or `Book`, `PowerPoint Document`,
/// `VisioDocument`); then the root's class identifier for Word, Excel and
/// PowerPoint files whose streams say nothing.
///
/// The directory is read by following its chain through the allocation
/// table, at most ``directorySectorLimit`` sectors; the table's own sectors
/// are found through the header's list and at most ``difatSectorLimit``
/// further list sectors. A chain that loops, a sector outside the file or a
/// sector shift other than 9 or 12 ends the walk.
enum CompoundFile {
    static let signature: [UInt8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]
    /// How many directory sectors are read at most.
    static let directorySectorLimit = 32
    /// How many sectors of the allocation table's list (DIFAT) past the
    /// header are followed at most.
    static let difatSectorLimit = 64
    /// The highest sector number that names a sector (`MAXREGSECT`).
    private static let lastSector = 0xFFFF_FFFA

    private struct Layout {
        let header: ContainerBytes
        let sectorSize: Int
        let size: Int

        /// Where sector `n` starts, when it is a sector inside the file.
        func offset(of n: Int) -> Int? {
            guard n >= 0, n <= CompoundFile.lastSector else { return nil }
            let offset = (n + 1) * sectorSize
            return offset < size ? offset : nil
        }
    }

    static func identify(_ reader: inout ContentReader) -> ContainerFormat.Identification? {
        guard let head = reader.read(at: 0, count: 512), head.count == 512 else { return nil }
        let header = ContainerBytes(head)
        let shift = header.little(0x1E, 2)
        guard header.matches([0xFE, 0xFF], at: 0x1C), shift == 9 || shift == 12 else { return nil }
        let layout = Layout(header: header, sectorSize: 1 << shift, size: reader.size)
        let entries = directory(layout, &reader)
        guard let root = entries.first, root[66] == 5 else { return nil }
        let classID = root.slice(80, 16)
        if let installer = installerClasses[classID] { return found(installer, nil) }
        let names = Set(children(of: entries).map { $0.lowercased() })
        if names.contains("worddocument") { return found("application/msword", "com.microsoft.word.doc") }
        if names.contains("workbook") || names.contains("book") {
            return found("application/vnd.ms-excel", "com.microsoft.excel.xls")
        }
        if names.contains("powerpoint document") {
            return found("application/vnd.ms-powerpoint", "com.microsoft.powerpoint.ppt")
        }
        if names.contains("visiodocument") { return found("application/vnd.visio", nil) }
        if let document = documentClasses[classID] { return document }
        return nil
    }

    /// The directory's 128-byte entries, in order, from the sectors of its
    /// chain that could be read.
    private static func directory(_ layout: Layout, _ reader: inout ContentReader) -> [ContainerBytes] {
        var entries: [ContainerBytes] = []
        var sector = layout.header.little(0x30, 4)
        var seen: Set<Int> = []
        while seen.count < directorySectorLimit, seen.insert(sector).inserted,
            let offset = layout.offset(of: sector),
            let bytes = reader.read(at: offset, count: layout.sectorSize)
        {
            let sectorBytes = ContainerBytes(bytes)
            for start in stride(from: 0, through: bytes.count - 128, by: 128) {
                entries.append(ContainerBytes(sectorBytes.slice(start, 128)))
            }
            guard bytes.count == layout.sectorSize, let next = nextSector(after: sector, layout, &reader) else { break }
            sector = next
        }
        return entries
    }

    /// The sector after `sector` in its chain, from the allocation table.
    private static func nextSector(after sector: Int, _ layout: Layout, _ reader: inout ContentReader) -> Int? {
        let perSector = layout.sectorSize / 4
        guard let tableSector = allocationSector(sector / perSector, layout, &reader),
            let tableOffset = layout.offset(of: tableSector),
            let word = reader.read(at: tableOffset + sector % perSector * 4, count: 4), word.count == 4
        else { return nil }
        return ContainerBytes(word).little(0, 4)
    }

    /// The sector holding part `index` of the allocation table: one of the
    /// header's first 109, or one listed in the DIFAT sectors after it.
    private static func allocationSector(_ index: Int, _ layout: Layout, _ reader: inout ContentReader) -> Int? {
        if index < 109 { return layout.header.little(0x4C + index * 4, 4) }
        let perSector = layout.sectorSize / 4 - 1
        let hops = (index - 109) / perSector
        guard hops < difatSectorLimit else { return nil }
        var sector = layout.header.little(0x44, 4)
        for _ in 0..<hops {
            guard let offset = layout.offset(of: sector),
                let word = reader.read(at: offset + perSector * 4, count: 4), word.count == 4
            else { return nil }
            sector = ContainerBytes(word).little(0, 4)
        }
        guard let offset = layout.offset(of: sector),
            let word = reader.read(at: offset + (index - 109) % perSector * 4, count: 4), word.count == 4
        else { return nil }
        return ContainerBytes(word).little(0, 4)
    }

    /// The names of the entries directly under the root (entry 0): the
    /// tree of siblings under its child, each entry visited once.
    private static func children(of entries: [ContainerBytes]) -> [String] {
        var names: [String] = []
        var pending = [entries[0].little(76, 4)]
        var seen: Set<Int> = [0]
        while let id = pending.popLast() {
            guard id < entries.count, seen.insert(id).inserted else { continue }
            let entry = entries[id]
            if entry[66] == 1 || entry[66] == 2 { names.append(name(of: entry)) }
            pending.append(entry.little(68, 4))
            pending.append(entry.little(72, 4))
        }
        return names
    }

    /// An entry's name: UTF-16LE, its stated length in bytes counting the
    /// final NUL, at most 64.
    private static func name(of entry: ContainerBytes) -> String {
        let length = min(entry.little(64, 2), 64) / 2
        let units = (0..<max(length - 1, 0)).map { UInt16(entry.little($0 * 2, 2)) }
        return String(decoding: units, as: UTF16.self)
    }

    /// Class identifiers (as stored: the first three fields little-endian)
    /// of Windows Installer databases, patches and transforms.
    private static let installerClasses: [[UInt8]: String] = [
        classID(0x000C_1084): "application/x-msi",
        classID(0x000C_1086): "application/x-msi",
        classID(0x000C_1082): "application/x-msi",
    ]

    /// Class identifiers of Word, Excel and PowerPoint documents.
    private static let documentClasses: [[UInt8]: ContainerFormat.Identification] = {
        let word = found("application/msword", "com.microsoft.word.doc")
        let excel = found("application/vnd.ms-excel", "com.microsoft.excel.xls")
        let powerPoint = found("application/vnd.ms-powerpoint", "com.microsoft.powerpoint.ppt")
        return [
            classID(0x0002_0906): word, classID(0x0002_0900): word,
            classID(0x0002_0820): excel, classID(0x0002_0810): excel,
            // {64818D10-4F9B-11CF-86EA-00AA00B929E8}
            [0x10, 0x8D, 0x81, 0x64, 0x9B, 0x4F, 0xCF, 0x11, 0x86, 0xEA, 0x00, 0xAA, 0x00, 0xB9, 0x29, 0xE8]:
                powerPoint,
        ]
    }()

    /// The stored bytes of `{XXXXXXXX-0000-0000-C000-000000000046}`.
    private static func classID(_ first: UInt32) -> [UInt8] {
        [UInt8(first & 0xFF), UInt8(first >> 8 & 0xFF), UInt8(first >> 16 & 0xFF), UInt8(first >> 24)]
            + [0, 0, 0, 0, 0xC0, 0, 0, 0, 0, 0, 0, 0x46]
    }

    private static func found(_ mimeType: String, _ identifier: String?) -> ContainerFormat.Identification {
        ContainerFormat.Identification(mimeType: mimeType, identifier: identifier, container: .compoundFile)
    }
}
