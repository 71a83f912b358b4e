import PropertyLists
import SystemBase
import UniformTypes

#if canImport(Glibc)
    import Glibc
#endif

/// What `stat` says a path is (symbolic links followed).
enum PathKind {
    static func isFolder(_ path: String) -> Bool { (try? stat(path: path))?.isDirectory ?? false }
    static func isRegularFile(_ path: String) -> Bool { (try? stat(path: path))?.isRegularFile ?? false }
}

/// Where handlers and associations are looked for, from the XDG Base
/// Directory variables (defaults as the spec gives them; relative paths are
/// ignored, as it requires).
public struct ApplicationSearchPath: Sendable {
    /// `$XDG_CONFIG_HOME` (`~/.config`): where `uti` writes user defaults.
    public var configHome: String?
    /// `$XDG_CONFIG_DIRS` (`/etc/xdg`), most important first.
    public var configDirs: [String]
    /// `$XDG_DATA_HOME` (`~/.local/share`).
    public var dataHome: String?
    /// `$XDG_DATA_DIRS` (`/usr/local/share:/usr/share`), most important first.
    public var dataDirs: [String]
    /// `$XDG_CURRENT_DESKTOP`, lowercased, for `DESKTOP-mimeapps.list`.
    public var currentDesktops: [String]
    /// Bundle paths the user named (`--apps`, `UTI_APPS`): a bundle or a
    /// folder of bundles; a missing one is an error.
    public var explicitBundlePaths: [String]
    /// `$PATH`, for `TryExec` and `Exec` programs.
    public var programSearchPath: String?
    /// The language for localized names (`LC_ALL`, `LC_MESSAGES`, `LANG`).
    public var language: String?

    /// A search path of the given folders and values; each one left out is nil or empty.
    public init(
        configHome: String? = nil, configDirs: [String] = [], dataHome: String? = nil, dataDirs: [String] = [],
        currentDesktops: [String] = [], explicitBundlePaths: [String] = [], programSearchPath: String? = nil,
        language: String? = nil
    ) {
        self.configHome = configHome
        self.configDirs = configDirs
        self.dataHome = dataHome
        self.dataDirs = dataDirs
        self.currentDesktops = currentDesktops
        self.explicitBundlePaths = explicitBundlePaths
        self.programSearchPath = programSearchPath
        self.language = language
    }

    /// The search path `variables` describe; `bundlePaths` (from `--apps`)
    /// come before `UTI_APPS`.
    public static func environment(
        _ variables: [String: String] = ProcessEnvironment.current,
        bundlePaths: [String] = []
    ) -> ApplicationSearchPath {
        let xdg = XDGBaseDirectories(variables)
        let desktops = (EnvironmentVariable.currentDesktop.value(in: variables) ?? "").split(separator: ":").map {
            $0.lowercased()
        }
        let language = EnvironmentVariable.locale(in: variables)
        let bundles = AppBundleSearchPath.environment(variables, bundlePaths: bundlePaths)
        return ApplicationSearchPath(
            configHome: xdg.configHome,
            configDirs: xdg.configDirs,
            dataHome: xdg.dataHome,
            dataDirs: xdg.dataDirs,
            currentDesktops: desktops,
            explicitBundlePaths: bundles.explicitPaths,
            programSearchPath: EnvironmentVariable.path.value(in: variables),
            language: language)
    }

    /// A folder that holds association lists, in the order GLib reads them:
    /// the config folders, then each data folder's `applications`.
    public struct AssociationFolder: Sendable, Equatable {
        /// The folder's path: a config folder itself, or a data folder's `applications`.
        public var path: String
        /// Config folders hold only `mimeapps.list` files, never desktop entries.
        public var isConfig: Bool
    }

    /// Most important first: `$XDG_CONFIG_HOME`, `$XDG_CONFIG_DIRS`,
    /// `$XDG_DATA_HOME/applications`, each `$XDG_DATA_DIRS/applications`.
    public var associationFolders: [AssociationFolder] {
        var result: [AssociationFolder] = []
        func add(_ path: String, config: Bool) {
            if !result.contains(where: { $0.path == path }) {
                result.append(AssociationFolder(path: path, isConfig: config))
            }
        }
        if let configHome { add(configHome, config: true) }
        for dir in configDirs { add(dir, config: true) }
        if let dataHome { add(dataHome + "/applications", config: false) }
        for dir in dataDirs { add(dir + "/applications", config: false) }
        return result
    }

    /// Folders of app bundles that need not exist, most important first:
    /// `$XDG_DATA_HOME/uti/apps`, then each `$XDG_DATA_DIRS/uti/apps`.
    public var bundleFolders: [String] { AppBundleSearchPath.folders(dataHome: dataHome, dataDirs: dataDirs) }

    /// The app bundles this search path names (`explicitBundlePaths`, then
    /// `bundleFolders`), as a registry reads their type declarations: set
    /// `RegistrySources.applications` to it so that the registry holds the
    /// types of the same bundles `AppBundleSet` and `HandlerCatalog` read.
    public var bundles: AppBundleSearchPath {
        AppBundleSearchPath(explicitPaths: explicitBundlePaths, folders: bundleFolders)
    }

    /// The file `uti` writes user defaults to.
    public var userAssociationsFile: String? { configHome.map { $0 + "/mimeapps.list" } }
}
