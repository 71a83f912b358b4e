import SystemBase

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension MIMEDatabase {
    /// The `x-content/*` types whose tree rules match the folder at `root`
    /// (a mounted volume, a camera card), highest priority first. Paths in
    /// a rule are relative to `root`; without `match-case` each component
    /// is found case-insensitively. Nothing is opened for reading.
    public func treeTypes(ofDirectory root: String) -> [String] {
        var result: [String] = []
        for rule in treeMagic where rule.matches.contains(where: { matches($0, root: root) }) {
            if !result.contains(rule.mimeType) { result.append(rule.mimeType) }
        }
        return result
    }

    private func matches(_ match: TreeMatch, root: String) -> Bool {
        guard let path = Self.resolve(match.path, under: root, matchCase: match.matchCase) else { return false }
        var info = stat()
        guard lstat(path, &info) == 0 else { return false }
        var effective = info
        if info.isSymbolicLink, stat(path, &effective) != 0 { effective = info }
        switch match.kind {
        case .file: if !effective.isRegularFile { return false }
        case .directory: if !effective.isDirectory { return false }
        case .link: if !info.isSymbolicLink { return false }
        case .any: break
        }
        if match.executable && access(path, X_OK) != 0 { return false }
        if match.nonEmpty {
            if effective.isDirectory {
                guard Self.hasEntries(path) else { return false }
            } else if effective.st_size == 0 {
                return false
            }
        }
        if let type = match.mimeType {
            let guessed = guess(name: Self.baseName(path), data: nil).mimeType
            if !isSubclass(guessed, of: type) { return false }
        }
        return match.children.isEmpty || match.children.contains { matches($0, root: root) }
    }

    /// `root/relative`, with each component found case-insensitively unless
    /// `matchCase`; nil when a component is missing.
    static func resolve(_ relative: String, under root: String, matchCase: Bool) -> String? {
        var current = root.hasSuffix("/") ? String(root.dropLast()) : root
        // Unicode scalars, not Characters: a combining mark after a / must not
        // hide it, and ".." is compared exactly.
        for scalars in relative.unicodeScalars.split(separator: "/") {
            let component = String(scalars)
            if scalars.elementsEqual("..".unicodeScalars) { return nil }
            if matchCase {
                current += "/" + component
                continue
            }
            let wanted = mimeKey(String(component))
            guard
                let found = DirectoryListing.names(in: current)?
                    .map({ String(decoding: $0, as: UTF8.self) })
                    .first(where: { mimeKey($0) == wanted })
            else { return nil }
            current += "/" + found
        }
        return current
    }

    static func hasEntries(_ path: String) -> Bool {
        !(DirectoryListing.names(in: path) ?? []).isEmpty
    }
}
