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
        // Which word is first depends on the options that take a value,
        // read from the parser only when some word may be a mistyped command.
        guard arguments.dropFirst().contains(where: { nearest($0) != nil }),
            let index = CommandWord.firstWord(arguments)
        else { return nil }
        return check(word: arguments[index])
    }

    /// The command `word` is within a few edits of, when it is no command.
    private static func nearest(_ word: String) -> String? {
        guard !CommandNames.contains(word) else { return nil }
        return Spelling.nearest(word, among: CommandNames.ordered, limit: 1).first
    }

    /// Exit status 2 with "did you mean" when `word`, the first word of the
    /// arguments, is a mistyped command; nil otherwise.
    static func check(word: String) -> Int32? {
        guard let meant = nearest(word) else { return nil }
        // A word the sources know is a lookup as written; when they cannot
        // be read, the command that follows reports why.
        guard let registry = try? RegistryOptions.loadCached(),
            !registry.claims(tag: word), registry.declaredType(word) == nil
        else { return nil }
        Console.error(
            "uti: \"\(Escaping.name(word))\" is not a command; did you mean \"\(meant)\"? "
                + "(no type claims it either; \(Escaping.command(["uti", "lookup", "--as-extension", word])) "
                + "looks it up as an extension)")
        return Status.error
    }
}
