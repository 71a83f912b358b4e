import ArgumentParser
import DocumentHandlers
import SystemBase
import UniformTypes

#if canImport(Glibc)
    import Glibc
#endif

extension CompletionKind {
    /// Extensions, MIME types and identifiers of the registry the command
    /// would load (its `--declarations`, `--apps` and `--no-system` words
    /// taken into account): for every argument and option that takes a type.
    static var typeNames: CompletionKind {
        .custom { words, index, prefix in ShellCompletion.typeNames(words, index, prefix) }
    }

    /// The desktop file IDs and app bundle identifiers of the application
    /// search path: for every argument and option that takes an application.
    static var applicationIDs: CompletionKind {
        .custom { words, index, prefix in ShellCompletion.applicationIDs(words, index, prefix) }
    }

    /// `uti conforms`' TYPE, a type or a file: paths only after `--file`,
    /// else type names and paths.
    static var typeNamesOrPaths: CompletionKind {
        .custom { words, index, prefix in ShellCompletion.typeNamesOrPaths(words, index, prefix) }
    }
}

/// What a shell is offered when it asks `uti ---completion …` for a value.
/// Each Tab runs this: the registry comes from the cache the commands use,
/// and nothing is written to standard error (it would land in the middle of
/// the command line being edited).
enum ShellCompletion {
    static func typeNames(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        quiet()
        let options = RegistryWords(words, before: index)
        let registry = try? RegistryOptions.loadCached(
            declarations: options.declarations, includeSystem: options.includeSystem,
            searchPath: .environment(bundlePaths: options.apps))
        return registry?.queryNames(startingWith: prefix) ?? []
    }

    static func applicationIDs(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        quiet()
        let options = RegistryWords(words, before: index)
        let catalog = HandlerCatalog(searchPath: .environment(bundlePaths: options.apps))
        return catalog.applicationIDs(startingWith: prefix)
    }

    static func typeNamesOrPaths(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        let paths = paths(startingWith: prefix)
        if words.prefix(index).contains("--file") { return paths }
        return typeNames(words, index, prefix) + paths
    }

    /// The entries of the folder `prefix` names up to its last `/` (the
    /// current folder when it has none) whose names start with the rest,
    /// each written as `prefix` begins and a folder ending in `/`; names
    /// that start with a dot only when the rest does.
    static func paths(startingWith prefix: String) -> [String] {
        let slash = prefix.lastIndex(of: "/")
        let written = slash.map { String(prefix[...$0]) } ?? ""
        let start = slash.map { String(prefix[prefix.index(after: $0)...]) } ?? prefix
        var folder = written.isEmpty ? "." : written
        if folder.hasPrefix("~/"),
            let home = EnvironmentVariable.home.value(in: ProcessEnvironment.current)
        {
            folder = home + folder.dropFirst()
        }
        guard let names = DirectoryListing.names(in: folder) else { return [] }
        var result: [String] = []
        for raw in names {
            guard let name = String(validating: raw, as: UTF8.self), name.hasPrefix(start),
                !name.hasPrefix(".") || start.hasPrefix(".")
            else { continue }
            let isFolder = (try? stat(path: folder + "/" + name))?.isDirectory ?? false
            result.append(written + name + (isFolder ? "/" : ""))
        }
        return result.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Sends standard error to /dev/null for the rest of this process,
    /// which ends once the candidates are printed.
    private static func quiet() {
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        if null >= 0 {
            dup2(null, 2)
            close(null)
        }
    }
}

/// The registry options among a command line's words before the one being
/// completed, as the shell wrote them (surrounding quotes removed).
struct RegistryWords {
    var declarations: [String] = []
    var apps: [String] = []
    var includeSystem = true

    init(_ words: [String], before index: Int) {
        let words = words.prefix(max(0, min(index, words.count))).map(Self.unquoted)
        var position = 0
        while position < words.count {
            let word = words[position]
            if word == "--" { break }
            if word == "--no-system" { includeSystem = false }
            if let value = Self.value(of: "--declarations", in: words, at: &position) {
                declarations.append(value)
            } else if let value = Self.value(of: "--apps", in: words, at: &position) {
                apps.append(value)
            }
            position += 1
        }
    }

    /// The value of option `name` when the word at `position` is it
    /// (`--name VALUE`, `position` then moved to the value, or `--name=VALUE`).
    private static func value(of name: String, in words: [String], at position: inout Int) -> String? {
        let word = words[position]
        if word == name, position + 1 < words.count {
            position += 1
            return words[position]
        }
        return word.hasPrefix(name + "=") ? String(word.dropFirst(name.count + 1)) : nil
    }

    private static func unquoted(_ word: String) -> String {
        guard word.count >= 2, let first = word.first, first == "'" || first == "\"", word.last == first else {
            return word
        }
        return String(word.dropFirst().dropLast())
    }
}
