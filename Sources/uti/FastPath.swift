import ArgumentParser
import UniformTypes

/// One flag of a command `FastPath` may answer, declared once. The command
/// holds its own flags as `@Flag var flags: [ItsFlag] = []`, so the parser
/// takes each flag's spellings and help from `declaration` (through
/// `name(for:)` and `help(for:)`), and `FastPath` reads the same
/// spellings. Both routes hand the flags to the command's `Request`, so a
/// flag means the same whichever route reads it.
protocol FastFlag: EnumerableFlag {
    /// The flag's spellings and help.
    var declaration: FlagDeclaration { get }
}

/// A flag's names, in the order the parser lists them (`-i`,
/// `--mime-charset`), and its help.
struct FlagDeclaration {
    /// A name of a flag: `--long` or `-s`.
    enum Name {
        case long(String), short(Character)
    }

    var names: [Name]
    /// Made only when the parser asks: the fast path reads the names alone.
    var help: () -> ArgumentHelp

    init(_ names: Name..., help: @autoclosure @escaping () -> ArgumentHelp) {
        self.names = names
        self.help = help
    }

    /// How the flag is written as an argument of its own: `--long`, `-s`.
    var spellings: [String] {
        names.map {
            switch $0 {
            case .long(let name): "--" + name
            case .short(let letter): "-" + String(letter)
            }
        }
    }

    /// The names as the parser declares them.
    var nameSpecification: NameSpecification {
        NameSpecification(
            names.map {
                switch $0 {
                case .long(let name): .customLong(name)
                case .short(let letter): .customShort(letter)
                }
            })
    }
}

extension FastFlag {
    static func name(for value: Self) -> NameSpecification { value.declaration.nameSpecification }

    static func help(for value: Self) -> ArgumentHelp? { value.declaration.help() }

    /// The flag `argument` spells on its own; nil for anything else.
    static func spelled(_ argument: String) -> Self? {
        allCases.first { $0.declaration.spellings.contains(argument) }
    }
}

/// A command `FastPath` may answer without the parser: its own flags (the
/// only options the fast path takes), the request they make with the
/// command's plain words, and the answer, which runs the function the
/// parsed command's `run()` runs.
protocol FastCommand: ParsableCommand {
    associatedtype Switch: FastFlag
    associatedtype Request

    /// The request `flags` and `words` make when no other option is given,
    /// as `run()` makes it from what the parser filled; nil when the parsed
    /// command would refuse them, which the parser then reports.
    static func request(flags: [Switch], words: [String]) -> Request?

    /// The exit status of `request` answered from `registry`, every other
    /// option at the value the parser gives when it is absent.
    static func answer(_ request: Request, registry: TypeRegistry) -> Int32
}

/// The everyday forms answered without the argument parser, whose set-up
/// (it inspects every command's declarations through the runtime) costs
/// more than a lookup: a `FastCommand` (`lookup`, the default command,
/// `file` and `conforms`) whose arguments are its own flags and plain
/// words, the flags before or after the command word. Anything else (another
/// option, `--help`, `--`, `-`, another command, or without a command word a
/// query that is a command's name) goes to the parser.
enum FastPath {
    /// The commands answered here; the others always go to the parser.
    private static let commands: [ParsableCommand.Type] = [Lookup.self, FileCommand.self, Conforms.self]

    /// `tokens` as `command` reads them. Each reading is compiled for its
    /// command: a generic one would look up the flags' types at run time,
    /// which costs more than the reading.
    private static func read(
        _ command: ParsableCommand.Type, _ tokens: [String], firstQuery: String?
    ) -> Invocation? {
        if command == Lookup.self { return invocation(Lookup.self, tokens, firstQuery: firstQuery) }
        if command == FileCommand.self { return invocation(FileCommand.self, tokens, firstQuery: firstQuery) }
        if command == Conforms.self { return invocation(Conforms.self, tokens, firstQuery: firstQuery) }
        return nil
    }

    /// The exit status when `arguments` is a form handled here; nil otherwise.
    static func run(_ arguments: [String]) -> Int32? {
        guard let invocation = invocation(arguments) else { return nil }
        if let word = invocation.firstQuery, let status = CommandSpelling.check(word: word) { return status }
        guard let registry = registry() else { return Status.error }
        return checked(invocation.answer(registry), registry)
    }

    /// A form the fast path answers, before the registry is loaded.
    struct Invocation {
        /// The command that answers.
        var command: ParsableCommand.Type
        /// The flags, as they were written.
        var flags: [String]
        /// The other arguments, in order.
        var words: [String]
        /// The first word when no command word was given: a mistyped command
        /// is refused before it is looked up (`CommandSpelling`).
        var firstQuery: String?
        var answer: (TypeRegistry) -> Int32
    }

    /// What the fast path makes of `arguments` (the program name first);
    /// nil when the parser must read them.
    static func invocation(_ arguments: [String]) -> Invocation? {
        let tokens = Array(arguments.dropFirst())
        guard let first = tokens.firstIndex(where: { !$0.hasPrefix("-") }) else { return nil }
        let word = tokens[first]
        // A command answered here is found by its own names: after the
        // command word, the parser reads every word as an argument.
        if let command = CommandNames.command(named: word), commands.contains(where: { $0 == command }) {
            var rest = tokens
            rest.remove(at: first)
            return read(command, rest, firstQuery: nil)
        }
        // Another command (or `help`) goes to the parser; any other word is
        // the default command's first query.
        guard !CommandNames.contains(word) else { return nil }
        return read(CommandName.defaultCommand.command, tokens, firstQuery: word)
    }

    /// `tokens` as `command`'s flags and words: nil when a token is neither
    /// one of its flags nor a plain word, or when the command would refuse
    /// the request.
    private static func invocation<Command: FastCommand>(
        _ command: Command.Type, _ tokens: [String], firstQuery: String?
    ) -> Invocation? {
        var flags: [Command.Switch] = []
        var spellings: [String] = []
        var words: [String] = []
        for token in tokens {
            if token.hasPrefix("-") {
                guard let flag = Command.Switch.spelled(token) else { return nil }
                flags.append(flag)
                spellings.append(token)
            } else {
                // Without a command word, a command name after options could
                // be read as the command word on the parser's route.
                guard !token.isEmpty, firstQuery == nil || !CommandNames.contains(token) else { return nil }
                words.append(token)
            }
        }
        guard let request = Command.request(flags: flags, words: words) else { return nil }
        return Invocation(
            command: Command.self, flags: spellings, words: words, firstQuery: firstQuery,
            answer: { Command.answer(request, registry: $0) })
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
}
