import SystemBase

/// The small text files `update-mime-database` writes beside `mime.cache`
/// that the cache does not carry: `types` (every type) and `treemagic`.
enum MIMETextFiles {
    /// One MIME type per line.
    static func types(_ bytes: [UInt8]) -> [String] {
        bytes.split(separator: UInt8(ascii: "\n")).compactMap { line in
            let text = String(decoding: line, as: UTF8.self).trimmingWhitespace()
            return isWellFormedMIMEType(text) ? text : nil
        }
    }

    /// `MIME-TreeMagic\0\n`, then sections `[priority:type]` of lines
    /// `[depth]>"path"=kind[,flag…][,mime/type]`.
    static func treeMagic(_ bytes: [UInt8], path: String, diagnostics: inout [Diagnostic]) -> [TreeMagicRule] {
        let header = Array("MIME-TreeMagic\0\n".utf8)
        guard bytes.starts(with: header) else {
            diagnostics.append(
                Diagnostic(.error, file: path, position: SourcePosition(line: 1), "not a MIME-TreeMagic file"))
            return []
        }
        var rules: [TreeMagicRule] = []
        var stack: [[TreeMatch]] = []  // matches being built, by depth
        func closeTo(_ depth: Int) {
            while stack.count > depth + 1 {
                let children = stack.removeLast()
                stack[stack.count - 1][stack[stack.count - 1].count - 1].children = children
            }
        }
        func finishRule() {
            guard !rules.isEmpty, !stack.isEmpty else {
                stack = []
                return
            }
            closeTo(0)
            rules[rules.count - 1].matches = stack[0]
            stack = []
        }
        var lineNumber = 1
        for line in bytes[header.count...].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            let text = String(decoding: line, as: UTF8.self)
            if text.isEmpty { continue }
            func bad(_ why: String) {
                diagnostics.append(Diagnostic(.error, file: path, position: SourcePosition(line: lineNumber), why))
            }
            if text.hasPrefix("[") {
                finishRule()
                guard text.hasSuffix("]"), let colon = text.firstIndex(of: ":"),
                    let priority = Int(text[text.index(after: text.startIndex)..<colon]), (0...100).contains(priority)
                else {
                    bad("section header \(text) is not [priority:type]")
                    continue
                }
                let type = String(text[text.index(after: colon)..<text.index(before: text.endIndex)])
                guard isWellFormedMIMEType(type) else {
                    bad("\(type) is not a MIME type")
                    continue
                }
                rules.append(TreeMagicRule(mimeType: type, priority: priority, matches: []))
                stack = [[]]
                continue
            }
            guard !rules.isEmpty, let gt = text.firstIndex(of: ">") else {
                bad("line outside a [priority:type] section")
                continue
            }
            let depth = gt == text.startIndex ? 0 : Int(text[..<gt]) ?? -1
            guard depth >= 0, depth <= stack.count - 1 + (stack.last?.isEmpty == false ? 1 : 0), depth < 32 else {
                bad("nesting level \(text[..<gt]) does not follow the previous line")
                continue
            }
            let rest = text[text.index(after: gt)...]
            guard rest.hasPrefix("\""), let close = rest.dropFirst().firstIndex(of: "\""),
                rest[rest.index(after: close)...].hasPrefix("=")
            else {
                bad("expected >\"path\"=kind")
                continue
            }
            let matchPath = String(rest[rest.index(after: rest.startIndex)..<close])
            let options = rest[rest.index(close, offsetBy: 2)...].split(separator: ",").map(String.init)
            guard let kind = options.first.flatMap(TreeMatch.ObjectKind.init(rawValue:)) else {
                bad("object kind must be file, directory, link or any")
                continue
            }
            var match = TreeMatch(path: matchPath, kind: kind)
            for option in options.dropFirst() {
                switch option {
                case "executable": match.executable = true
                case "match-case": match.matchCase = true
                case "non-empty": match.nonEmpty = true
                default:
                    if isWellFormedMIMEType(option) {
                        match.mimeType = option
                    } else {
                        bad("unknown treemagic option \(option)")
                    }
                }
            }
            if depth == stack.count { stack.append([]) } else { closeTo(depth) }
            stack[depth].append(match)
        }
        finishRule()
        return rules
    }
}
