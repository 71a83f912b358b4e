import UniformTypes

/// A mistyped command must not read as success: `uti confroms a.jpg
/// public.image` would otherwise look up three extensions and exit 0. A
/// first word that is not a command, is within a few edits of one, and is
/// no tag or identifier any source knows is refused with the command it
/// probably meant.
enum CommandSpelling {
    /// Exit status 2 with "did you mean" when `arguments` starts with a
    /// mistyped command; nil otherwise.
    static func check(_ arguments: [String]) -> Int32? {
        guard let index = CommandWord.firstWord(arguments) else { return nil }
        let word = arguments[index]
        guard !FastPath.commandNames.contains(word),
            let meant = Spelling.nearest(word, among: FastPath.commandNames, limit: 1).first
        else { return nil }
        // A word the sources know is a lookup as written; when they cannot
        // be read, the command that follows reports why.
        guard let registry = try? RegistryOptions.loadCached(),
            !registry.claims(tag: word), registry.declaredType(word) == nil
        else { return nil }
        Console.error(
            "uti: \"\(word)\" is not a command; did you mean \"\(meant)\"? "
                + "(no type claims it either; uti lookup --extension \(word) looks it up as an extension)")
        return Status.error
    }
}
