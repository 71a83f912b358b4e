import CompiledData

/// Layers and their diagnostics as bytes, so that a compiled registry can
/// carry the whole database and give it back without reading its sources.
enum MIMELayerCoding {
    static func encode(_ layers: [MIMELayer], _ diagnostics: [Diagnostic]) -> [UInt8] {
        var w = ByteWriter()
        w.int(layers.count)
        for layer in layers {
            w.string(layer.directory)
            w.string(layer.format.rawValue)
            w.strings(layer.types)
            w.map(layer.aliases) { $0.string($1) }
            w.map(layer.parents) { $0.strings($1) }
            w.int(layer.globs.count)
            for g in layer.globs {
                w.string(g.pattern)
                w.string(g.mimeType)
                w.int(g.weight)
                w.bool(g.caseSensitive)
            }
            w.int(layer.magic.count)
            for rule in layer.magic {
                w.string(rule.mimeType)
                w.int(rule.priority)
                matchlets(rule.matchlets, &w)
            }
            w.int(layer.treeMagic.count)
            for rule in layer.treeMagic {
                w.string(rule.mimeType)
                w.int(rule.priority)
                treeMatches(rule.matches, &w)
            }
            w.map(layer.comments) { w, texts in w.map(texts) { $0.string($1) } }
            w.map(layer.genericIcons) { $0.string($1) }
            w.strings(layer.globsDeleted.sorted())
            w.strings(layer.magicDeleted.sorted())
            w.map(layer.declaredAt) { w, p in
                w.string(p.file)
                w.int(p.line)
            }
        }
        w.int(diagnostics.count)
        for d in diagnostics {
            w.string(d.severity.rawValue)
            w.string(d.file)
            // Lines only: the MIME sources are text, or binary files named without a position (0).
            w.int(d.position.line ?? 0)
            w.string(d.message)
        }
        return w.bytes
    }

    private static func matchlets(_ list: [Matchlet], _ w: inout ByteWriter) {
        w.int(list.count)
        for m in list {
            w.int(m.rangeStart)
            w.int(m.rangeLength)
            w.bytes(m.value)
            w.bool(m.mask != nil)
            if let mask = m.mask { w.bytes(mask) }
            matchlets(m.children, &w)
        }
    }

    private static func treeMatches(_ list: [TreeMatch], _ w: inout ByteWriter) {
        w.int(list.count)
        for m in list {
            w.string(m.path)
            w.string(m.kind.rawValue)
            w.bool(m.matchCase)
            w.bool(m.executable)
            w.bool(m.nonEmpty)
            w.optional(m.mimeType)
            treeMatches(m.children, &w)
        }
    }

    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws(ImageError) -> ([MIMELayer], [Diagnostic]) {
        var r = ByteReader(bytes)
        var layers: [MIMELayer] = []
        for _ in 0..<(try r.count()) {
            let directory = try r.string()
            guard let format = MIMELayer.Format(rawValue: try r.string()) else {
                throw ImageError(.damaged, "unknown layer format")
            }
            var layer = MIMELayer(directory: directory, format: format)
            layer.types = try r.strings()
            layer.aliases = try r.map { (r: inout ByteReader) throws(ImageError) in try r.string() }
            layer.parents = try r.map { (r: inout ByteReader) throws(ImageError) in try r.strings() }
            for _ in 0..<(try r.count()) {
                layer.globs.append(
                    GlobRule(
                        pattern: try r.string(), mimeType: try r.string(), weight: try r.int(),
                        caseSensitive: try r.bool()))
            }
            for _ in 0..<(try r.count()) {
                layer.magic.append(
                    MagicRule(mimeType: try r.string(), priority: try r.int(), matchlets: try matchlets(&r, depth: 0)))
            }
            for _ in 0..<(try r.count()) {
                layer.treeMagic.append(
                    TreeMagicRule(
                        mimeType: try r.string(), priority: try r.int(), matches: try treeMatches(&r, depth: 0)))
            }
            layer.comments = try r.map { (r: inout ByteReader) throws(ImageError) in
                try r.map { (r: inout ByteReader) throws(ImageError) in try r.string() }
            }
            layer.genericIcons = try r.map { (r: inout ByteReader) throws(ImageError) in try r.string() }
            layer.globsDeleted = Set(try r.strings())
            layer.magicDeleted = Set(try r.strings())
            layer.declaredAt = try r.map { (r: inout ByteReader) throws(ImageError) in
                MIMESourcePosition(file: try r.string(), line: try r.int())
            }
            layers.append(layer)
        }
        var diagnostics: [Diagnostic] = []
        for _ in 0..<(try r.count()) {
            let severity = Diagnostic.Severity(rawValue: try r.string()) ?? .error
            let file = try r.string(), line = try r.int()
            diagnostics.append(Diagnostic(severity, file: file, position: SourcePosition(line: line), try r.string()))
        }
        guard r.isAtEnd else { throw ImageError(.damaged, "trailing bytes after the MIME layers") }
        return (layers, diagnostics)
    }

    private static let depthLimit = 64

    private static func matchlets(_ r: inout ByteReader, depth: Int) throws(ImageError) -> [Matchlet] {
        guard depth < depthLimit else { throw ImageError(.damaged, "matchlets nested too deeply") }
        var result: [Matchlet] = []
        for _ in 0..<(try r.count()) {
            let start = try r.int(), length = try r.int(), value = try r.bytes()
            let mask = try r.bool() ? try r.bytes() : nil
            guard mask == nil || mask!.count == value.count else {
                throw ImageError(.damaged, "mask and value differ in length")
            }
            result.append(
                Matchlet(
                    rangeStart: start, rangeLength: length, value: value, mask: mask,
                    children: try matchlets(&r, depth: depth + 1)))
        }
        return result
    }

    private static func treeMatches(_ r: inout ByteReader, depth: Int) throws(ImageError) -> [TreeMatch] {
        guard depth < depthLimit else { throw ImageError(.damaged, "tree matches nested too deeply") }
        var result: [TreeMatch] = []
        for _ in 0..<(try r.count()) {
            let path = try r.string()
            let kind = TreeMatch.ObjectKind(rawValue: try r.string()) ?? .any
            result.append(
                TreeMatch(
                    path: path, kind: kind, matchCase: try r.bool(), executable: try r.bool(),
                    nonEmpty: try r.bool(), mimeType: try r.optional(), children: try treeMatches(&r, depth: depth + 1))
            )
        }
        return result
    }
}
