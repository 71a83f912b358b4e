import SystemBase

/// Reads shared-mime-info XML (`packages/*.xml` and the per-type files
/// `update-mime-database` writes) through libxml2. The DTD's defaults are
/// applied here: glob weight 50, magic and treemagic priority 50. Each bad
/// element is reported with its file and line and skipped; the rest of the
/// file still counts.
public enum MIMEPackageReader {
    /// The namespace every shared-mime-info document uses.
    public static let namespace = "http://www.freedesktop.org/standards/shared-mime-info"
    /// The largest package file accepted.
    public static let sizeLimit = 32 << 20

    /// Reads one package file into `layer`, in order: a `glob-deleteall` or
    /// `magic-deleteall` drops what earlier files of the layer gave that type.
    public static func read(path: String, into layer: inout MIMELayer, diagnostics: inout [Diagnostic]) {
        let bytes: [UInt8]
        do {
            bytes = try FileContents.read(path, limit: sizeLimit)
        } catch {
            diagnostics.append(Diagnostic(.error, file: path, error.reason))
            return
        }
        read(bytes: bytes, path: path, into: &layer, diagnostics: &diagnostics)
    }

    /// Reads package XML already in memory into `layer`, as `read(path:into:diagnostics:)` does; `path`
    /// names the source in diagnostics and declaration positions.
    public static func read(
        bytes: [UInt8], path: String, into layer: inout MIMELayer, diagnostics: inout [Diagnostic]
    ) {
        let tree: XMLElementTree
        do {
            tree = try XMLElementTree(bytes: bytes)
        } catch {
            diagnostics.append(
                Diagnostic(.error, file: path, position: SourcePosition(line: error.line), error.message))
            return
        }
        guard let root = tree.root else { return }
        func report(_ severity: Diagnostic.Severity, _ line: Int, _ message: String) {
            diagnostics.append(Diagnostic(severity, file: path, position: SourcePosition(line: line), message))
        }
        let elements: [XMLElementTree.Element]
        switch root.name {
        case "mime-info": elements = root.children.filter { $0.name == "mime-type" }
        case "mime-type": elements = [root]
        default:
            report(.error, root.line, "the root element is <\(root.name)>; a shared-mime-info file has <mime-info>")
            return
        }
        if root.namespace != namespace {
            report(.warning, root.line, "the root element is not in the shared-mime-info namespace \(namespace)")
        }
        var known = Set(layer.types.map(mimeKey))
        for element in elements {
            guard let type = element.attribute("type"), isWellFormedMIMEType(type) else {
                report(
                    .error, element.line, "<mime-type> needs a type=\"media/subtype\" attribute; the element is skipped"
                )
                continue
            }
            let key = mimeKey(type)
            if known.insert(key).inserted { layer.types.append(type) }
            if layer.declaredAt[key] == nil {
                layer.declaredAt[key] = MIMESourcePosition(file: path, line: element.line)
            }
            readType(element, type: type, key: key, into: &layer, report: report)
        }
    }

    private static func readType(
        _ element: XMLElementTree.Element, type: String, key: String, into layer: inout MIMELayer,
        report: (Diagnostic.Severity, Int, String) -> Void
    ) {
        for child in element.children {
            switch child.name {
            case "comment":
                if let text = child.text {
                    layer.comments[key, default: [:]][child.language ?? ""] = text
                }
            case "glob":
                guard let pattern = child.attribute("pattern"), !pattern.isEmpty else {
                    report(.error, child.line, "<glob> of \(type) has no pattern")
                    continue
                }
                guard let weight = number(child.attribute("weight") ?? "50", in: 0...100) else {
                    report(.error, child.line, "glob \(pattern) of \(type): weight must be 0–100")
                    continue
                }
                let caseSensitive = child.attribute("case-sensitive") == "true"
                layer.globs.append(
                    GlobRule(
                        pattern: caseSensitive ? pattern : asciiLowercased(pattern), mimeType: type,
                        weight: weight, caseSensitive: caseSensitive))
            case "glob-deleteall":
                layer.globs.removeAll { mimeKey($0.mimeType) == key }
                layer.globsDeleted.insert(key)
            case "magic":
                guard let priority = number(child.attribute("priority") ?? "50", in: 0...100) else {
                    report(.error, child.line, "magic of \(type): priority must be 0–100")
                    continue
                }
                do throws(RuleError) {
                    var matchlets: [Matchlet] = []
                    for match in child.children where match.name == "match" {
                        matchlets.append(try matchlet(match, depth: 0))
                    }
                    if matchlets.isEmpty {
                        report(.warning, child.line, "<magic> of \(type) has no <match>")
                    } else {
                        layer.magic.append(MagicRule(mimeType: type, priority: priority, matchlets: matchlets))
                    }
                } catch {
                    report(.error, error.line, "magic of \(type): \(error.reason); the rule is skipped")
                }
            case "magic-deleteall":
                layer.magic.removeAll { mimeKey($0.mimeType) == key }
                layer.magicDeleted.insert(key)
            case "treemagic":
                guard let priority = number(child.attribute("priority") ?? "50", in: 0...100) else {
                    report(.error, child.line, "treemagic of \(type): priority must be 0–100")
                    continue
                }
                do throws(RuleError) {
                    var matches: [TreeMatch] = []
                    for match in child.children where match.name == "treematch" {
                        matches.append(try treeMatch(match, depth: 0))
                    }
                    layer.treeMagic.append(TreeMagicRule(mimeType: type, priority: priority, matches: matches))
                } catch {
                    report(.error, error.line, "treemagic of \(type): \(error.reason); the rule is skipped")
                }
            case "alias":
                guard let alias = child.attribute("type"), isWellFormedMIMEType(alias) else {
                    report(.error, child.line, "<alias> of \(type) needs type=\"media/subtype\"")
                    continue
                }
                layer.aliases[mimeKey(alias)] = type
            case "sub-class-of":
                guard let parent = child.attribute("type"), isWellFormedMIMEType(parent) else {
                    report(.error, child.line, "<sub-class-of> of \(type) needs type=\"media/subtype\"")
                    continue
                }
                if mimeKey(parent) == key {
                    report(.warning, child.line, "\(type) is declared a sub-class of itself")
                    continue
                }
                if !(layer.parents[key]?.contains(where: { mimeKey($0) == mimeKey(parent) }) ?? false) {
                    layer.parents[key, default: []].append(parent)
                }
            case "generic-icon":
                if let name = child.attribute("name") { layer.genericIcons[key] = name }
            default:
                break
            }
        }
    }

    struct RuleError: Error {
        var line: Int
        var reason: String
        init(element: XMLElementTree.Element, reason: String) {
            self.line = element.line
            self.reason = reason
        }
    }

    static func matchlet(_ element: XMLElementTree.Element, depth: Int) throws(RuleError) -> Matchlet {
        guard depth < 32 else { throw RuleError(element: element, reason: "<match> nested more than 32 deep") }
        guard let type = element.attribute("type"), let offset = element.attribute("offset"),
            let valueText = element.attribute("value")
        else {
            throw RuleError(element: element, reason: "<match> needs type, offset and value")
        }
        guard let range = MagicValueSyntax.offsetRange(offset) else {
            throw RuleError(element: element, reason: "offset \"\(offset)\" is not N or START:END")
        }
        let value: [UInt8], mask: [UInt8]?
        do throws(MagicValueSyntax.Failure) {
            value = try MagicValueSyntax.value(valueText, type: type)
            if let maskText = element.attribute("mask") {
                mask = try MagicValueSyntax.mask(maskText, type: type, length: value.count)
            } else {
                mask = nil
            }
        } catch {
            throw RuleError(element: element, reason: error.reason)
        }
        var children: [Matchlet] = []
        for child in element.children where child.name == "match" {
            children.append(try matchlet(child, depth: depth + 1))
        }
        return Matchlet(
            rangeStart: range.start, rangeLength: range.length, value: value, mask: mask, children: children)
    }

    static func treeMatch(_ element: XMLElementTree.Element, depth: Int) throws(RuleError) -> TreeMatch {
        guard depth < 32 else { throw RuleError(element: element, reason: "<treematch> nested more than 32 deep") }
        guard let path = element.attribute("path"), !path.isEmpty else {
            throw RuleError(element: element, reason: "<treematch> needs a path")
        }
        let kindText = element.attribute("type") ?? "any"
        guard let kind = TreeMatch.ObjectKind(rawValue: kindText) else {
            throw RuleError(element: element, reason: "treematch type \"\(kindText)\" is not file, directory or link")
        }
        var children: [TreeMatch] = []
        for child in element.children where child.name == "treematch" {
            children.append(try treeMatch(child, depth: depth + 1))
        }
        return TreeMatch(
            path: path, kind: kind, matchCase: element.attribute("match-case") == "true",
            executable: element.attribute("executable") == "true",
            nonEmpty: element.attribute("non-empty") == "true",
            mimeType: element.attribute("mimetype"), children: children)
    }

    static func number(_ text: String, in range: ClosedRange<Int>) -> Int? {
        guard let n = Int(text.trimmingWhitespace()), range.contains(n) else { return nil }
        return n
    }
}

/// ASCII-only lower-casing, as shared-mime-info compares names.
func asciiLowercased(_ text: String) -> String { mimeKey(text) }
