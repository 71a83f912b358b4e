/// The XDG Base Directory variables, read once with the spec's rules:
/// defaults for unset or empty variables, relative paths ignored, trailing
/// slashes dropped, repeated folders listed once (most important first).
public struct XDGBaseDirectories: Sendable, Equatable {
    /// `$XDG_DATA_HOME`, else `$HOME/.local/share`; nil without either.
    public var dataHome: String?
    /// `$XDG_DATA_DIRS`, else `/usr/local/share:/usr/share`.
    public var dataDirs: [String]
    /// `$XDG_CONFIG_HOME`, else `$HOME/.config`; nil without either.
    public var configHome: String?
    /// `$XDG_CONFIG_DIRS`, else `/etc/xdg`.
    public var configDirs: [String]
    /// `$XDG_CACHE_HOME`, else `$HOME/.cache`; nil without either.
    public var cacheHome: String?
    /// `$XDG_STATE_HOME`, else `$HOME/.local/state`; nil without either.
    public var stateHome: String?

    public init(_ variables: [String: String] = ProcessEnvironment.current) {
        let home = EnvironmentVariable.home.value(in: variables).flatMap(Self.absolute)
        func single(_ variable: EnvironmentVariable, _ fallback: String) -> String? {
            variable.value(in: variables).flatMap(Self.absolute)
                ?? home.map { $0 == "/" ? "/" + fallback : $0 + "/" + fallback }
        }
        func list(_ variable: EnvironmentVariable, _ fallback: String) -> [String] {
            let value = variable.value(in: variables).flatMap { $0.isEmpty ? nil : $0 } ?? fallback
            var result: [String] = []
            for entry in value.split(separator: ":") {
                if let path = Self.absolute(String(entry)), !result.contains(path) { result.append(path) }
            }
            return result
        }
        dataHome = single(.dataHome, ".local/share")
        dataDirs = list(.dataDirs, "/usr/local/share:/usr/share")
        configHome = single(.configHome, ".config")
        configDirs = list(.configDirs, "/etc/xdg")
        cacheHome = single(.cacheHome, ".cache")
        stateHome = single(.stateHome, ".local/state")
    }

    /// `sub` under `$XDG_DATA_HOME` and then each `$XDG_DATA_DIRS` entry,
    /// most important first, each folder once.
    public func dataFolders(_ sub: String) -> [String] {
        var result: [String] = []
        for dir in [dataHome].compactMap({ $0 }) + dataDirs where !result.contains(dir + "/" + sub) {
            result.append(dir + "/" + sub)
        }
        return result
    }

    /// `path` without trailing slashes when it is absolute, else nil.
    static func absolute(_ path: String) -> String? {
        guard path.utf8.first == UInt8(ascii: "/") else { return nil }
        var path = Substring(path)
        while path.utf8.count > 1 && path.utf8.last == UInt8(ascii: "/") { path = path.dropLast() }
        return String(path)
    }
}
