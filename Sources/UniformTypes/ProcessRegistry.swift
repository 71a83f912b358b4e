import PropertyLists
import Synchronization
import SystemBase

#if canImport(Glibc)
    import Glibc
#endif

/// The registry of the running process: the one `TypeRegistry.default`,
/// this module's `UniformType` initializers and Apple's API in
/// `UniformTypeIdentifiers` (through `ProcessTypeDeclarations`) all answer
/// from, so that every door gives the same answer.
///
/// It is `TypeRegistry.load(_:cache:)` of the sources the environment
/// names, as the `uti` tool reads them, built on first use from, lowest
/// precedence first:
///
/// 1. the system's MIME data (shared-mime-info, `mime.types`) and the
///    bundled declarations;
/// 2. app bundles' declarations (`UTI_APPS`, the XDG `uti/apps` folders),
///    then declaration files in the XDG `uti/types` folders, then the files
///    and folders `UTI_DECLARATIONS` names (`:`-separated);
/// 3. the program's `Info.plist`: the first of `infoPlistCandidates` that
///    exists, beside or near the executable;
/// 4. the declarations given to `add(_:name:)`, in the order given.
///
/// When nothing was added in code, the registry comes from a compiled file
/// in the cache folder the `uti` tool uses (`RegistryCache.environment`,
/// read into memory of its own), so a first lookup reads one checked file
/// instead of parsing every source; the file is rebuilt when a source or
/// the program changed.
/// It is built once per process: threads that ask while it is being built
/// wait for that build.
///
/// A source that cannot be read does not stop a lookup: it is left out and
/// listed in `problems`. Warnings (a source left out; a type the program
/// names that no source declares) are kept in `warnings` and passed to the
/// handler set with `setWarningHandler(_:)`; none is written anywhere
/// unless the program sets one.
package enum ProcessRegistry {
    private struct State {
        var added: [DeclarationReader] = []
        /// Set when a build has taken `added`: later additions are refused.
        var building = false
        var registry: TypeRegistry?
        var problems: [String] = []
        var warned: Set<String> = []
        var warnings: [String] = []
        var handler: (@Sendable (String) -> Void)?
    }

    private static let state = Mutex(State())
    /// Held by the one thread that builds the registry.
    private static let building = Mutex(())
    /// How many registries this process built (one, once any is).
    package static let buildCount = Atomic(0)

    /// The registry, built on first use.
    package static var registry: TypeRegistry {
        if let registry = state.withLock({ $0.registry }) { return registry }
        return building.withLock { _ in
            if let registry = state.withLock({ $0.registry }) { return registry }
            let added = state.withLock { state in
                state.building = true
                return state.added
            }
            buildCount.add(1, ordering: .relaxed)
            let (built, problems) = build(added: added, infoPlist: infoPlistPath)
            let registry = built.madePermanent()
            state.withLock { state in
                state.registry = registry
                state.problems = problems
            }
            for problem in problems { report("uti: \(problem); left out") }
            return registry
        }
    }

    /// Adds declarations (read from a file or a property list in memory)
    /// to the registry; `name` stands for their file in messages. Throws
    /// the reader's error, or when the registry is already built (or being
    /// built): declarations must be added before the first lookup.
    package static func add(_ reader: DeclarationReader, name: String) throws(Failure) {
        if let error = reader.fileError { throw Failure(problems: [error.description]) }
        let refused = state.withLock { state in
            if state.registry != nil || state.building { return true }
            state.added.append(reader)
            return false
        }
        if refused {
            throw Failure(problems: ["\(name): declarations must be added before the first type is looked up"])
        }
    }

    /// Declarations that could not be added, or sources that could not be
    /// used: one line per problem, each naming its file (and line where known).
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// The problems, one line each.
        package var problems: [String]
        /// A failure listing `problems`.
        package init(problems: [String]) { self.problems = problems }
        /// The problems, one per line.
        package var description: String { problems.joined(separator: "\n") }
    }

    /// The sources that could not be used when the registry was built
    /// (building it now if it was not).
    package static var problems: [String] {
        _ = registry
        return state.withLock { $0.problems }
    }

    /// Sets what receives each warning, or nil for none (the default).
    /// Warnings given before it is set are in `warnings`.
    package static func setWarningHandler(_ handler: (@Sendable (String) -> Void)?) {
        state.withLock { $0.handler = handler }
    }

    /// Every warning given so far, in order.
    package static var warnings: [String] { state.withLock { $0.warnings } }

    /// Gives the warning for a type the program names (`exportedAs`,
    /// `importedAs`) but no source declares, once per identifier.
    package static func warnUndeclared(_ identifier: String, role: String) {
        let first = state.withLock { $0.warned.insert(identifier.lowercased()).inserted }
        guard first else { return }
        report(
            "uti: type \"\(identifier)\" was expected to be declared and \(role) (Info.plist beside the program, "
                + "UTI_DECLARATIONS, or ProcessTypeDeclarations.add), but no source declares it")
    }

    private static func report(_ line: String) {
        let handler = state.withLock { state in
            state.warnings.append(line)
            return state.handler
        }
        handler?(line)
    }

    // MARK: The program's Info.plist

    /// The places the program's `Info.plist` is looked for, given the
    /// executable's path; the first that exists is read:
    /// `DIR/Info.plist` (beside the executable), `DIR/../Info.plist` (the
    /// `Contents/MacOS/` layout of a Mac bundle), and
    /// `DIR/../share/NAME/Info.plist` (an installed program, such as
    /// `/usr/bin/NAME` with `/usr/share/NAME/Info.plist`).
    package static func infoPlistCandidates(executable: String) -> [String] {
        let directory = parent(of: executable)
        let name = components(of: executable).last.map { String(decoding: $0, as: UTF8.self) } ?? ""
        let above = parent(of: directory)
        return [
            join(directory, "Info.plist"), join(above, "Info.plist"),
            join(join(join(above, "share"), name), "Info.plist"),
        ]
    }

    /// The running program's executable, symbolic links resolved.
    package static var executablePath: String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The `Info.plist` read for the running program, if any.
    package static var infoPlistPath: String? {
        guard let executable = executablePath else { return nil }
        return infoPlistCandidates(executable: executable).first { FileStatus.exists($0) }
    }

    /// The folder of `path`, from the root: its components but the last,
    /// each after one "/" (`/a//b/c` gives `/a/b`, `/a` and `/` give `/`).
    private static func parent(of path: String) -> String {
        var bytes: [UInt8] = []
        for component in components(of: path).dropLast() {
            bytes.append(UInt8(ascii: "/"))
            bytes.append(contentsOf: component)
        }
        return bytes.isEmpty ? "/" : String(decoding: bytes, as: UTF8.self)
    }

    /// The non-empty components of `path`, as bytes. Read byte by byte:
    /// the generic splitting and joining of strings has the runtime look
    /// up conformances in every loaded library, which in a program that
    /// links Foundation costs more than the rest of a first lookup.
    private static func components(of path: String) -> [[UInt8]] {
        var result: [[UInt8]] = []
        var current: [UInt8] = []
        for byte in path.utf8 {
            if byte != UInt8(ascii: "/") {
                current.append(byte)
            } else if !current.isEmpty {
                result.append(current)
                current.removeAll(keepingCapacity: true)
            }
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    private static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    // MARK: Building

    /// The registry of the sources listed above, with the problems of those
    /// that could not be used: from the compiled cache when nothing was
    /// added in code and every named source can be read, else built here.
    static func build(
        added: [DeclarationReader], infoPlist: String?,
        environment: [String: String] = ProcessEnvironment.current
    ) -> (TypeRegistry, [String]) {
        let sources = RegistrySources(
            programInfoPlist: infoPlist, program: executablePath ?? "", addedInCode: added, namedSources: .leaveOut,
            environment: environment)
        do throws(TypeRegistry.LoadError) {
            let loaded = try TypeRegistry.load(sources, cache: RegistryCache.environment(environment))
            return (loaded.registry, loaded.leftOut.map(\.description))
        } catch {
            // Left-out sources do not throw; should one, the bundled types still answer.
            return (TypeRegistry.bundled, error.diagnostics.map(\.description))
        }
    }
}
