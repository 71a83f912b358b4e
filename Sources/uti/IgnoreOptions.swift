import ArgumentParser
import SystemBase

/// `--ignore GLOB` and `--no-default-ignore`, which `uti watch` and `uti
/// inbox` share: the patterns of what they leave out, the defaults
/// (`IgnorePattern.defaults`) first unless turned off.
struct IgnoreOptions: ParsableArguments {
    @Option(
        name: .customLong("ignore"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "Skip what matches this glob (*.log, build/, /cache/**); repeatable.", valueName: "glob"))
    var globs: [String] = []
    @Flag(
        name: .customLong("no-default-ignore"),
        help: "Skip only what --ignore names, not editors', downloads' and version control's own files.")
    var noDefaultIgnore = false

    func validate() throws { _ = try patterns() }

    /// The defaults unless `--no-default-ignore`, then each `--ignore`
    /// (read as bytes: a glob need not be UTF-8). A malformed glob is an
    /// error naming it and the character at fault; so, with `topLevelOnly`
    /// (the inbox, which never looks inside what it moves), is a glob that
    /// only matches inside a folder.
    func patterns(topLevelOnly: Bool = false) throws -> [IgnorePattern] {
        var patterns = noDefaultIgnore ? [] : IgnorePattern.defaults
        for glob in globs {
            let pattern: IgnorePattern
            do throws(IgnorePattern.Problem) {
                pattern = try IgnorePattern(bytes: PathText.bytes(glob))
            } catch {
                throw ValidationError("--ignore '\(error.glob)': at character \(error.position): \(error.reason)")
            }
            if topLevelOnly && !pattern.canMatchTopLevelItem {
                throw ValidationError(
                    "--ignore '\(pattern)': matches only inside a folder, and the inbox moves what is directly "
                        + "in Inbox as a whole; give a name (*.tmp, drafts/)")
            }
            patterns.append(pattern)
        }
        return patterns
    }

    /// The default patterns, as the help lists them.
    static var defaults: String { IgnorePattern.defaults.map(\.description).joined(separator: ", ") }
}
