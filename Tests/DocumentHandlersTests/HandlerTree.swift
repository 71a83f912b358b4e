import DocumentHandlers
import Foundation
import TestSupport
import UniformTypes

/// A temporary XDG tree (config home, a config dir, data home, two data
/// dirs, bundle folders) to hold fixture handlers.
final class HandlerTree {
    let folder = TemporaryFolder("uti-handlers")
    var root: String { folder.path }
    var configHome: String { root + "/config" }
    var configDir: String { root + "/etc-xdg" }
    var dataHome: String { root + "/home-share" }
    var localShare: String { root + "/local-share" }
    var share: String { root + "/share" }

    init() {
        for dir in [
            configHome, configDir, dataHome + "/applications", localShare + "/applications", share + "/applications",
        ] {
            try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
    }

    /// Writes `text` at `path` (relative to the root), creating folders.
    func write(_ path: String, _ text: String) {
        try! folder.write(path, text)
    }

    /// A desktop entry with the keys given (Type, Name and Exec default to an app running /bin/true).
    func desktop(_ path: String, name: String, mime: [String], extra: String = "", exec: String = "/bin/true %f") {
        write(
            path,
            """
            [Desktop Entry]
            Type=Application
            Name=\(name)
            Exec=\(exec)
            MimeType=\(mime.joined(separator: ";"));
            \(extra)
            """)
    }

    func searchPath(desktops: [String] = [], bundles: [String] = []) -> ApplicationSearchPath {
        ApplicationSearchPath(
            configHome: configHome, configDirs: [configDir], dataHome: dataHome,
            dataDirs: [localShare, share], currentDesktops: desktops,
            explicitBundlePaths: bundles, programSearchPath: "/usr/bin:/bin")
    }

    /// The catalog, a registry of the bundled types plus the bundles' own, and a resolver.
    func resolver(desktops: [String] = [], bundles: [String] = []) throws -> HandlerResolver {
        let path = searchPath(desktops: desktops, bundles: bundles)
        let set = AppBundleSet(searchPath: path)
        // The bundles the catalog reads, and no declaration file of the machine.
        var sources = RegistrySources(includeSystem: false, environment: [:])
        sources.declarations = DeclarationSearchPath()
        sources.applications = path.bundles
        let registry = try TypeRegistry.load(sources, cache: nil).registry
        return HandlerResolver(catalog: HandlerCatalog(searchPath: path, bundles: set), registry: registry)
    }
}

extension HandlerResolver {
    func ids(_ identifier: String, role: RoleFilter = .any) -> [String] {
        resolve(registry.type(identifier: identifier)!, role: role).candidates.map(\.handler.id)
    }
}
