import ArgumentParser
import UniformTypes

/// Where the command word stands in an argument list. Options may come
/// before the command (`uti --no-system conforms jpg public.text`, `uti
/// --json file x.png`); they mean what they mean after it, so on the
/// parser's route the command word is moved to the front before the parser
/// reads the arguments. A command word after options is never a query.
enum CommandWord {
    /// `arguments` with a command word that follows options moved to the
    /// front: `uti --json file x.png` is `uti file --json x.png`.
    static func normalized(_ arguments: [String]) -> [String] {
        guard let index = commandAfterOptions(arguments) else { return arguments }
        var result = arguments
        let word = result.remove(at: index)
        result.insert(word, at: 1)
        return result
    }

    /// The index of a command word that the options before it leave as the
    /// first word (an option that takes a value, for that command or for the
    /// default command, takes the next argument); nil when there is none.
    /// An option the command does not take is then refused by the command:
    /// `uti --language de conforms jpg public.text` is `uti conforms
    /// --language de …`, an error, never a lookup of `conforms`.
    static func commandAfterOptions(_ arguments: [String]) -> Int? {
        // `---completion COMMAND … -- …` is a shell asking the parser for candidates, its command word in place.
        guard arguments.count > 2, arguments[1].hasPrefix("-"), arguments[1] != "-", arguments[1] != "---completion"
        else { return nil }
        var defaultOptions: Set<String>?
        for index in 2..<arguments.count {
            let word = arguments[index]
            if word == "--" { return nil }
            // `help` too: `uti --language de help conforms` asks for help, never looks up "help".
            guard CommandNames.contains(word) else { continue }
            let fallback = defaultOptions ?? ParserModel.optionsTakingValues(of: CommandName.defaultCommand.command)
            defaultOptions = fallback
            let own = CommandNames.command(named: word).map(ParserModel.optionsTakingValues(of:)) ?? []
            let options = own.union(fallback)
            if firstWord(arguments, optionsTakingValues: options) == index { return index }
        }
        return nil
    }

    /// The first option written `--NAME=` with nothing after `=`, before
    /// `--`; nil when there is none. The parser would take the next
    /// argument as its value (`uti inbox --inbox= sub` would empty `sub`).
    static func emptyAttachedValue(_ arguments: [String]) -> String? {
        for argument in arguments.dropFirst() {
            if argument == "--" { return nil }
            guard argument.hasPrefix("--"), argument.hasSuffix("="), argument.count > 3 else { continue }
            if argument.dropFirst(2).dropLast().contains("=") { continue }
            return argument
        }
        return nil
    }

    /// The index of the first argument (after the program name) that is
    /// neither an option nor an option's value, or nil when there is none
    /// before the end or `--`.
    static func firstWord(_ arguments: [String], optionsTakingValues: Set<String>) -> Int? {
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { return nil }
            guard argument.hasPrefix("-"), argument != "-" else { return index }
            if !argument.contains("="), optionsTakingValues.contains(argument) { index += 1 }
            index += 1
        }
        return nil
    }

    /// The first word of `arguments` as the command that reads them sees
    /// it: the command word, or the first query of the default command.
    static func firstWord(_ arguments: [String]) -> Int? {
        guard arguments.count > 1, arguments[1].hasPrefix("-") else { return arguments.count > 1 ? 1 : nil }
        let command = CommandName.defaultCommand.command
        return firstWord(arguments, optionsTakingValues: ParserModel.optionsTakingValues(of: command))
    }
}

/// Every subcommand and the word that names it, in the order `uti --help`
/// lists them: the one declaration both the parser (`UTI`'s subcommands and
/// each command's `commandName`) and the word checks below read. Telling a
/// command word from a query so reads no command's configuration, whose
/// help texts are built when first read.
enum CommandName: String, CaseIterable {
    case lookup, file, tags, conforms, equal, supertypes, descendants, decode, graph, validate, batch, filter
    case inbox, watch
    case openIn = "open-in", open
    case setDefault = "set-default", defaults

    /// The command a query without a command word goes to.
    static let defaultCommand = CommandName.lookup

    /// The command the word names.
    var command: ParsableCommand.Type {
        switch self {
        case .lookup: Lookup.self
        case .file: FileCommand.self
        case .tags: Tags.self
        case .conforms: Conforms.self
        case .equal: Equal.self
        case .supertypes: Supertypes.self
        case .descendants: Descendants.self
        case .decode: Decode.self
        case .graph: Graph.self
        case .validate: Validate.self
        case .batch: Batch.self
        case .filter: Filter.self
        case .inbox: InboxCommand.self
        case .watch: Watch.self
        case .openIn: OpenIn.self
        case .open: Open.self
        case .setDefault: SetDefault.self
        case .defaults: Defaults.self
        }
    }
}

/// The command words, from `CommandName`, and the `help` the parser adds.
enum CommandNames {
    /// Every command word, in the order `uti --help` lists the commands (a
    /// closure rather than a key path, whose metadata is built at run time).
    static let ordered: [String] = CommandName.allCases.map { $0.rawValue } + ["help"]

    /// Whether `word` is a command word.
    static func contains(_ word: String) -> Bool { word == "help" || CommandName(rawValue: word) != nil }

    /// The subcommand `word` names; nil for `help` and anything else.
    static func command(named word: String) -> ParsableCommand.Type? { CommandName(rawValue: word)?.command }
}

extension CommandWord {
    /// The argument parser's message about an unknown option that is a
    /// misspelling of the root's `--version` or `--help`, which it does not
    /// suggest from inside a command: `Unknown option '--verison'` gains
    /// `. Did you mean '--version'?`, in the parser's own words.
    static func withRootSuggestion(_ message: String) -> String {
        let marker = "Unknown option '"
        guard !message.contains("Did you mean"), let line = message.split(separator: "\n").first,
            let start = line.firstRange(of: marker)
        else { return message }
        let option = line[start.upperBound...].prefix { $0 != "'" }
        guard let near = Spelling.nearest(String(option), among: ["--version", "--help"], limit: 1).first else {
            return message
        }
        return String(line) + ". Did you mean '\(near)'?" + message.dropFirst(line.count)
    }
}
