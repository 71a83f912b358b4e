import UniformTypes

/// Where the command word stands in an argument list. Options may come
/// before the command (`uti --no-system conforms jpg public.text`, `uti
/// --json file x.png`); they mean what they mean after it, so the command
/// word is moved to the front before anything else reads the arguments. A
/// command word after options is never a query.
enum CommandWord {
    /// Options whose value is the next argument, in every command.
    /// `CommandWordTests` checks the list against the parser.
    static let optionsTakingValues: Set<String> = [
        "--add", "--all-declared", "--app", "--apps", "--class", "--conforming-to", "--declarations", "--exec",
        "--inbox",
        "--language",
        "--remove", "--role", "--selector", "--settle", "--tag-class", "--type",
    ]
    /// Options that take a value in one command and none in another
    /// (`set-default --file SETTINGS`, `conforms --file`): before the
    /// command they are read as flags when a command word follows.
    static let optionsTakingValuesSometimes: Set<String> = ["--file"]

    /// The index of the first argument (after the program name) that is
    /// neither an option nor an option's value, or nil when there is none
    /// before the end or `--`.
    static func firstWord(_ arguments: [String]) -> Int? {
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { return nil }
            guard argument.hasPrefix("-"), argument != "-" else { return index }
            if !argument.contains("=") {
                if optionsTakingValues.contains(argument) {
                    index += 1
                } else if optionsTakingValuesSometimes.contains(argument), index + 1 < arguments.count,
                    !FastPath.commandNames.contains(arguments[index + 1])
                {
                    index += 1
                }
            }
            index += 1
        }
        return nil
    }

    /// `arguments` with a command word that follows options moved to the
    /// front: `uti --json file x.png` is `uti file --json x.png`.
    static func normalized(_ arguments: [String]) -> [String] {
        guard let index = firstWord(arguments), index > 1, FastPath.commandNames.contains(arguments[index]) else {
            return arguments
        }
        var result = arguments
        let word = result.remove(at: index)
        result.insert(word, at: 1)
        return result
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
