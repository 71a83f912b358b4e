#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An environment variable `uti` reads: each is named here once, with what
/// it does, and the Environment table of docs/reference.md is checked against this list.
public struct EnvironmentVariable: Sendable, Hashable {
    public let name: String
    /// What the variable does, as the Environment table says it.
    public let summary: String

    init(_ name: String, _ summary: String) {
        self.name = name
        self.summary = summary
    }

    /// The variable's value in `variables`.
    public func value(in variables: [String: String]) -> String? { variables[name] }

    /// Declaration files and folders to read after the XDG `uti/types` folders, `:`-separated.
    public static let declarations = EnvironmentVariable(
        "UTI_DECLARATIONS",
        "declaration files and folders to read (`:`-separated); one that cannot be read stops every command")
    /// App bundles, or folders of bundles, to read as handlers and declarations, `:`-separated.
    public static let apps = EnvironmentVariable(
        "UTI_APPS", "app bundles, or folders of them (`:`-separated), read after `--apps`")
    /// The `mime.types` files to read instead of the usual ones; empty for none.
    public static let mimeTypes = EnvironmentVariable(
        "UTI_MIME_TYPES",
        "the `mime.types` files to read instead of `~/.mime.types` and `/etc/mime.types` (`:`-separated; empty for none)"
    )
    /// Where compiled registries are kept; empty turns the cache off.
    public static let cacheDirectory = EnvironmentVariable(
        "UTI_CACHE_DIR",
        "where compiled registries are kept, instead of `$XDG_CACHE_HOME/uti`; empty turns the cache off")
    public static let home = EnvironmentVariable("HOME", "the base of the XDG defaults and of `~/.mime.types`")
    public static let dataHome = EnvironmentVariable(
        "XDG_DATA_HOME", "the user's data folder (`~/.local/share`): `mime`, `uti/types`, `uti/apps`, `applications`")
    public static let dataDirs = EnvironmentVariable(
        "XDG_DATA_DIRS", "the system's data folders (`/usr/local/share:/usr/share`), searched after `XDG_DATA_HOME`")
    public static let configHome = EnvironmentVariable(
        "XDG_CONFIG_HOME",
        "the user's config folder (`~/.config`): the `mimeapps.list` that `set-default` writes, "
            + "and the routes file `uti/routes` of `inbox`")
    public static let configDirs = EnvironmentVariable(
        "XDG_CONFIG_DIRS", "the system's config folders (`/etc/xdg`) for `mimeapps.list`")
    public static let cacheHome = EnvironmentVariable("XDG_CACHE_HOME", "the user's cache folder (`~/.cache`)")
    public static let stateHome = EnvironmentVariable(
        "XDG_STATE_HOME",
        "the user's state folder (`~/.local/state`): `uti/inbox` holds the records `inbox` keeps of moves across file systems"
    )
    public static let currentDesktop = EnvironmentVariable(
        "XDG_CURRENT_DESKTOP", "the desktops whose `DESKTOP-mimeapps.list` files are read first (`:`-separated)")
    public static let path = EnvironmentVariable(
        "PATH",
        "where the `TryExec` and `Exec` programs of desktop entries, and the program of `uti watch --exec`, are looked for"
    )
    public static let terminal = EnvironmentVariable(
        "TERMINAL",
        "the terminal (run as `TERMINAL -e COMMAND`) for `Terminal=true` entries when there is no `xdg-terminal-exec`")
    public static let selector = EnvironmentVariable(
        "UTI_SELECTOR",
        "the program `open-in --choose` asks with (`fzf`, `rofi -dmenu`), quoted as a desktop entry's `Exec`")
    public static let allLocales = EnvironmentVariable(
        "LC_ALL", "the language of descriptions and desktop entry names, before `LC_MESSAGES`")
    public static let messagesLocale = EnvironmentVariable("LC_MESSAGES", "the language, when `LC_ALL` is not set")
    public static let language = EnvironmentVariable(
        "LANG", "the language, when neither `LC_ALL` nor `LC_MESSAGES` is set")

    /// Every variable `uti` reads, in the Environment table's order.
    public static let all: [EnvironmentVariable] = [
        declarations, apps, mimeTypes, cacheDirectory, home, dataHome, dataDirs, configHome, configDirs, cacheHome,
        stateHome, currentDesktop, path, terminal, selector, allLocales, messagesLocale, language,
    ]

    /// The variables that name files and folders `uti` reads or writes
    /// (the XDG folders, `HOME`, `UTI_DECLARATIONS`, `UTI_APPS`,
    /// `UTI_MIME_TYPES`, `UTI_CACHE_DIR`).
    public static let paths: [EnvironmentVariable] = [
        declarations, apps, mimeTypes, cacheDirectory, home, dataHome, dataDirs, configHome, configDirs, cacheHome,
        stateHome,
    ]

    /// The variables of `paths` whose value in this process's environment is
    /// not UTF-8 text. Such a value cannot be kept as a `String` without
    /// changing its bytes, which would name another folder.
    public static var undecodablePaths: [EnvironmentVariable] {
        paths.filter { variable in
            guard let raw = getenv(variable.name) else { return false }
            return String(validatingCString: raw) == nil
        }
    }

    /// The language of messages, as POSIX picks it: the first of `LC_ALL`,
    /// `LC_MESSAGES` and `LANG` that is set and not empty. Nil when that is
    /// the C locale (`C`, `C.UTF-8`, `POSIX`), which is not translated.
    public static func locale(in variables: [String: String]) -> String? {
        guard
            let value = [allLocales, messagesLocale, language].lazy.compactMap({ $0.value(in: variables) })
                .first(where: { !$0.isEmpty })
        else { return nil }
        return value == "C" || value == "POSIX" || value.hasPrefix("C.") ? nil : value
    }

    /// The Environment table of docs/reference.md: a header and one row per variable.
    public static var readmeTable: String {
        (["| variable | what it does |", "| --- | --- |"] + all.map { "| `\($0.name)` | \($0.summary) |" })
            .joined(separator: "\n")
    }
}
