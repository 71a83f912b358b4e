import ArgumentParser
import DocumentHandlers
import PropertyLists
import UniformTypes

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: CommandName.validate.rawValue,
        abstract:
            "Check declaration files and app bundles: syntax, identifiers, parents, cycles, duplicates, tag clashes, document and URL types.",
        discussion: """
            Each PATH (a property list, an app Info.plist, an app bundle such as My.app, or
            a folder of *.plist) is read with the bundled types, so parents may be bundled
            types. An app's Info.plist (binary or XML) is also checked as a handler:
            CFBundleDocumentTypes (LSHandlerRank Owner, Default, Alternate or None;
            CFBundleTypeRole Editor, Viewer, Shell, None or QLGenerator; LSItemContentTypes
            that no source declares, with the identifiers near them; legacy keys that
            LSItemContentTypes makes ignored; misspelled keys) and CFBundleURLTypes
            (CFBundleURLSchemes that are not schemes, a missing role). --system checks the
            system's MIME data instead (or as well): the shared-mime-info folders of the
            XDG data directories and the mime.types files, including tags that conflict
            with other sources (notes, shown with -v). Problems print as
            FILE:LINE: SEVERITY: MESSAGE. Exit 0 when no errors were found (--strict: no
            warnings either), 1 when some were, 2 when a path cannot be used.
            """)

    @OptionGroup var output: OutputOptions
    @Flag(help: "Treat warnings as errors for the exit status.")
    var strict = false
    @Flag(name: .shortAndLong, help: "Also print notes (overrides of bundled types).")
    var verbose = false
    @Flag(name: .customLong("no-bundled"), help: "Check the files on their own, without the bundled types.")
    var noBundled = false
    @Flag(help: "Check the system's MIME data (shared-mime-info, mime.types).")
    var system = false
    @Argument(help: "Declaration files or folders.", completion: .file()) var paths: [String] = []

    func validate() throws {
        if paths.isEmpty && !system {
            throw ValidationError("give at least one declarations file or folder, or --system")
        }
    }

    func run() throws {
        // An app bundle is checked through its Info.plist.
        let paths = self.paths.map { AppBundle.infoPlist(in: $0) ?? $0 }
        let (files, missing) = DeclarationSearchPath(explicitPaths: paths).resolve()
        if !missing.isEmpty {
            for m in missing { Console.error("uti: \(m)") }
            throw ExitCode(Status.error)
        }
        // The files alone (no declaration folder, app bundle or UTI_DECLARATIONS), with the bundled types and
        // the system's data as asked; a file that cannot be read is left out and reported with the rest.
        var sources = RegistrySources(includeSystem: system, namedSources: .leaveOut)
        sources.includeBundled = !noBundled
        sources.declarations = DeclarationSearchPath(explicitPaths: files)
        sources.applications = AppBundleSearchPath()
        let loaded: TypeRegistry.Loaded
        do { loaded = try TypeRegistry.load(sources, cache: nil) } catch { throw error.reported() }
        let registry = loaded.registry
        let checked = Set(files)
        func isChecked(_ file: String) -> Bool {
            checked.contains(file) || (system && !file.hasPrefix("Data/"))
        }
        let found =
            registry.diagnostics.filter { isChecked($0.file) }
            + loaded.leftOut.filter { checked.contains($0.file) }
            + files.flatMap { Self.handlerDiagnostics($0, registry: registry) }
        let shown =
            found
            .filter { $0.severity != .note || verbose || output.json }
            .enumerated()
            .sorted {
                ($0.element.file, Self.order($0.element.position), $0.offset) < (
                    $1.element.file, Self.order($1.element.position), $1.offset
                )
            }
            .map(\.element)
        let errors = shown.filter { $0.severity == .error }.count
        let warnings = shown.filter { $0.severity == .warning }.count
        let types = registry.types(declaredIn: isChecked).count
        if output.json {
            print(
                JSON.object([
                    ("files", JSON.strings(files)),
                    ("types", .int(types)),
                    ("errors", .int(errors)),
                    ("warnings", .int(warnings)),
                    ("diagnostics", .array(shown.map(Self.json))),
                ]).serialized())
        } else {
            // A message quotes what the files hold.
            for d in shown { TerminalText.print("\(keepingBackslashes: d.description)") }
            TerminalText.print(
                "\(files.count) file\(files.count == 1 ? "" : "s"), \(types) type\(types == 1 ? "" : "s"): \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"
            )
        }
        if errors > 0 || (strict && warnings > 0) { throw ExitCode(Status.no) }
    }

    /// What `file` says as an app's Info.plist: its document and URL types.
    /// Nothing for a property list that is not an app's (it has no
    /// CFBundleIdentifier, CFBundleDocumentTypes or CFBundleURLTypes) or
    /// that cannot be read (the declaration reader reports that).
    static func handlerDiagnostics(_ file: String, registry: TypeRegistry) -> [Diagnostic] {
        guard let plist = try? AppBundle.readPropertyList(file), plist.dictionaryValue != nil,
            ["CFBundleIdentifier", "CFBundleDocumentTypes", "CFBundleURLTypes"].contains(where: { plist[$0] != nil })
        else { return [] }
        let folder = String(
            file.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropLast()
                .map { String(decoding: $0, as: UTF8.self) }.joined(separator: "/"))
        do {
            let bundle = try AppBundle(path: folder, infoPlistPath: file, plist: plist)
            return bundle.diagnostics + bundle.contentTypeDiagnostics(registry: registry)
        } catch {
            return [
                Diagnostic(
                    .error, file: error.file, position: error.position,
                    error.message + "; no application is read from it")
            ]
        }
    }

    /// A line or byte offset, for sorting a file's diagnostics.
    static func order(_ position: SourcePosition) -> Int {
        switch position {
        case .line(let n), .offset(let n): n
        case .unknown: 0
        }
    }

    static func json(_ d: Diagnostic) -> JSON {
        var position: [(String, JSON)] = []
        switch d.position {
        case .line(let n): position = [("line", .int(n))]
        case .offset(let n): position = [("offset", .int(n))]
        case .unknown: break
        }
        return .object(
            [("file", .string(d.file))] + position + [
                ("severity", .string(d.severity.rawValue)),
                ("message", .string(d.message)),
            ])
    }
}
