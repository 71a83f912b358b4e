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
    /// first word when the command reads them (its options that take a value
    /// take the next argument); nil when there is none.
    static func commandAfterOptions(_ arguments: [String]) -> Int? {
        // `---completion COMMAND … -- …` is a shell asking the parser for candidates, its command word in place.
        guard arguments.count > 2, arguments[1].hasPrefix("-"), arguments[1] != "-", arguments[1] != "---completion"
        else { return nil }
        for index in 2..<arguments.count {
            let word = arguments[index]
            if word == "--" { return nil }
            guard CommandNames.contains(word) else { continue }
            let options = CommandNames.command(named: word).map(ParserModel.optionsTakingValues(of:)) ?? []
            if firstWord(arguments, optionsTakingValues: options) == index { return index }
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
        let command = UTI.configuration.defaultSubcommand
        return firstWord(arguments, optionsTakingValues: command.map(ParserModel.optionsTakingValues(of:)) ?? [])
    }
}

/// The command words the parser knows, from its own declaration.
enum CommandNames {
    /// Each subcommand's name and aliases, in the order `uti --help` lists
    /// them, and the `help` the parser adds; beside them, the subcommands
    /// they name (`help` names none).
    private static let table: (names: [String], commands: [ParsableCommand.Type]) = {
        var names: [String] = [], commands: [ParsableCommand.Type] = []
        for command in UTI.configuration.subcommands {
            for name in CommandNames.names(of: command) {
                names.append(name)
                commands.append(command)
            }
        }
        names.append("help")
        return (names, commands)
    }()

    /// Every command word, in the order `uti --help` lists the commands.
    static var ordered: [String] { table.names }

    /// Whether `word` is a command word.
    static func contains(_ word: String) -> Bool { table.names.contains(word) }

    /// The subcommand `word` names; nil for `help` and anything else.
    static func command(named word: String) -> ParsableCommand.Type? {
        table.names.firstIndex(of: word).flatMap { $0 < table.commands.count ? table.commands[$0] : nil }
    }

    /// The words that name `command`: its name and its aliases.
    static func names(of command: ParsableCommand.Type) -> [String] {
        let configuration = command.configuration
        return [name(of: command, configuration)] + configuration.aliases
    }

    /// The name the parser gives `command` (`_commandName`): its
    /// configuration's, else its type's name converted. The parser converts
    /// the name `String(describing:)` gives, whose dynamic casts scan every
    /// protocol conformance of the binary (several times a lookup's work);
    /// a type name of one capital and small letters becomes that word in
    /// small letters by its rule, and is converted here alike; any other is
    /// left to the parser.
    static func name(of command: ParsableCommand.Type, _ configuration: CommandConfiguration) -> String {
        if let name = configuration.commandName { return name }
        let typeName = _typeName(command, qualified: false).unicodeScalars
        if let first = typeName.first, ("A"..."Z").contains(first),
            typeName.dropFirst().allSatisfy({ ("a"..."z").contains($0) })
        {
            return String(typeName).lowercased()
        }
        return command._commandName
    }
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
