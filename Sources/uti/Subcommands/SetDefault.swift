import ArgumentParser
import DocumentHandlers
import UniformTypes

struct SetDefault: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-default",
        abstract: "Choose the application that opens a type, in the user's mimeapps.list.",
        discussion: """
        Writes "MIME/TYPE=ID;" for each MIME type of TYPE into [Default Applications] of
        $XDG_CONFIG_HOME/mimeapps.list (~/.config/mimeapps.list), the file GLib, KDE and
        xdg-utils read; a type without a MIME type is written under its identifier,
        which only uti reads. Everything else in the file is kept; the file is replaced
        atomically. A default for a type beats every other application for that type
        and for its subtypes that have no default or handler of their own.

        Exit status: 0 written; 2 bad arguments, an unknown application, or a file
        that cannot be read or written.
        """)

    @OptionGroup var registryOptions: RegistryOptions
    @Argument(help: "The type: extension, MIME type or identifier.")
    var type: String
    @Argument(help: "The application: a desktop file ID (vim.desktop) or a bundle identifier.")
    var app: String?
    @Flag(help: "Remove the user's default for TYPE instead.")
    var clear = false

    func validate() throws {
        if clear && app != nil { throw ValidationError("give either an application or --clear") }
        if !clear && app == nil { throw ValidationError("give the application to use, or --clear") }
    }

    func run() throws {
        let (registry, bundles) = try registryOptions.loadOrExit()
        let searchPath = registryOptions.applicationSearchPath
        guard let file = searchPath.userAssociationsFile else {
            throw Console.fail("neither XDG_CONFIG_HOME nor HOME names a folder for mimeapps.list")
        }
        let target = try QueryResolver(registry: registry).argument(type, "TYPE")
        if let app {
            let resolver = HandlerResolver(catalog: HandlerCatalog(searchPath: searchPath, bundles: bundles), registry: registry)
            if case .failure(let error) = resolver.handler(app) {
                throw Console.fail("\(app): \(error.message)")
            }
        }
        let keys = target.tags(.mimeType).isEmpty ? [target.identifier] : target.tags(.mimeType)
        do {
            try UserDefaultsWriter.set(app, for: keys, in: file)
        } catch {
            throw Console.fail(error.message)
        }
        if let app {
            print("\(target.identifier): \(app) is the default (\(keys.joined(separator: ", "))) in \(file)")
        } else {
            print("\(target.identifier): the default is cleared (\(keys.joined(separator: ", "))) in \(file)")
        }
    }
}
