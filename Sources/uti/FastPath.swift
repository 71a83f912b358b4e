import UniformTypes

/// The everyday forms answered without the argument parser, whose set-up
/// (it inspects every command's declarations through the runtime) costs
/// more than a lookup: `uti QUERY… [-b]`, `uti file [-b|--mime]
/// [--no-sniff] [--follow] PATH…` and `uti conforms [-v] TYPE SUPERTYPE`.
/// Anything else (another option, `--help`, a word that is a command name,
/// an argument starting with `-`) goes to the parser. Both paths print
/// through the same functions.
enum FastPath {
    /// The exit status when `arguments` is a form handled here; nil otherwise.
    static func run(_ arguments: [String]) -> Int32? {
        let args = Array(arguments.dropFirst())
        guard let first = args.first else { return nil }
        switch first {
        case "file": return file(Array(args.dropFirst()))
        case "conforms": return conforms(Array(args.dropFirst()))
        default: return lookup(args)
        }
    }

    /// The options each fast form accepts; any other option goes to the
    /// parser. `FastPathAgreesWithTheParserTests` checks each against the
    /// parser's options of the command, so an option added to one and not
    /// the other is seen.
    static var options: [String: [String]] {
        ["lookup": lookupOptions, "file": fileOptions, "conforms": conformsOptions]
    }
    static let lookupOptions = ["-b", "--brief"]
    static let fileOptions = ["-b", "--brief", "--mime", "--no-sniff", "--follow"]
    static let conformsOptions = ["-v", "--verbose"]

    /// Splits `args` into the flags of `allowed` and plain words; nil when
    /// anything else starts with `-` or a word is empty or a command name.
    private static func split(_ args: [String], allowed: [String]) -> (flags: [String], words: [String])? {
        var flags: [String] = []
        var words: [String] = []
        for arg in args {
            if arg.hasPrefix("-") {
                guard allowed.contains(arg) else { return nil }
                flags.append(arg)
            } else {
                guard !arg.isEmpty, !CommandNames.contains(arg) else { return nil }
                words.append(arg)
            }
        }
        return (flags, words)
    }

    /// Kept until the process exits, which frees everything at once.
    nonisolated(unsafe) private static var retained: TypeRegistry?

    /// The registry, its cache file mapped: this process ends after its
    /// answer. Every write to standard output first asks that the mapping
    /// is still intact, and `checked` says when output was held back.
    private static func registry() -> TypeRegistry? {
        do {
            let registry = try RegistryOptions.loadCached(reading: .map)
            retained = registry
            Console.answersAreIntact = { registry.isIntact }
            return registry
        } catch {
            _ = error.reported()
            return nil
        }
    }

    /// `status`, or an error when output was held back because the
    /// registry's file was asked for writing or cut short while in use.
    private static func checked(_ status: Int32, _ registry: TypeRegistry) -> Int32 {
        guard !Console.withheld else {
            Console.error(
                "uti: another program asked to change the compiled registry's file while it was in use; "
                    + "answers from then on were not printed: run again")
            return Status.error
        }
        return status
    }

    private static func lookup(_ args: [String]) -> Int32? {
        guard let (flags, words) = split(args, allowed: lookupOptions), !words.isEmpty else { return nil }
        guard let registry = registry() else { return Status.error }
        return checked(
            Lookup.perform(
                resolver: QueryResolver(registry: registry), queries: words, brief: !flags.isEmpty,
                json: false, language: nil), registry)
    }

    private static func file(_ args: [String]) -> Int32? {
        guard let (flags, paths) = split(args, allowed: fileOptions),
            !paths.isEmpty
        else { return nil }
        let brief = flags.contains("-b") || flags.contains("--brief"), mime = flags.contains("--mime")
        guard !(brief && mime) else { return nil }
        guard let registry = registry() else { return Status.error }
        let options = FileTyping.Options(
            sniff: !flags.contains("--no-sniff"), followSymbolicLinks: flags.contains("--follow"))
        return checked(
            FileCommand.perform(
                typing: FileTyping(registry: registry), paths: paths, options: options,
                form: brief ? .brief : mime ? .mime : .summary, language: nil), registry)
    }

    private static func conforms(_ args: [String]) -> Int32? {
        guard let (flags, words) = split(args, allowed: conformsOptions), words.count == 2 else { return nil }
        guard let registry = registry() else { return Status.error }
        do {
            return checked(
                try Conforms.perform(
                    resolver: QueryResolver(registry: registry), type: words[0],
                    supertype: words[1], verbose: !flags.isEmpty), registry)
        } catch {
            return checked(Status.error, registry)
        }
    }
}
