import Foundation
import PropertyLists
import Synchronization
import SystemBase
import UniformTypes

/// The type declarations of the running program, and the registry `UTType`
/// answers from.
///
/// On a Mac, `UTType(exportedAs:)` finds a program's own types in its
/// bundle's `Info.plist`. Here the registry is `TypeRegistry.default` of
/// the `UniformTypes` module (so both modules answer alike), built on first
/// use from, lowest precedence first:
///
/// 1. the system's MIME data (shared-mime-info, `mime.types`) and the
///    bundled declarations;
/// 2. app bundles' declarations (`UTI_APPS`, the XDG `uti/apps` folders),
///    then declaration files in the XDG `uti/types` folders, then the files
///    and folders `UTI_DECLARATIONS` names (`:`-separated), the sources the
///    `uti` tool reads, so that both give the same answers;
/// 3. the program's `Info.plist`: the first of `infoPlistCandidates` that
///    exists, beside or near the executable;
/// 4. the files and property lists given to `add(contentsOf:)` and
///    `add(propertyList:name:)`, in the order given.
///
/// `UTExportedTypeDeclarations` and `UTImportedTypeDeclarations` are read
/// from each, in XML or binary form. Declarations must be added before the
/// first type is looked up; the registry does not change afterwards. When
/// none was added in code, the registry is read from a compiled file in the
/// cache folder the `uti` tool uses (rebuilt when a source or the program
/// changed).
///
/// A source that cannot be read does not stop a lookup: it is left out,
/// listed in `problems` and `warnings`, and passed to the warning handler
/// (none unless the program sets one with `setWarningHandler(_:)`; this
/// library writes nothing to standard error by itself). Call `activate()`
/// at start-up to have such a problem thrown instead.
///
/// The registry is built once per process, however many threads ask for
/// it first: the others wait for that build.
public enum ProcessTypeDeclarations {
    /// A declaration source that could not be used, or declarations added
    /// after the registry was built.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// One line per problem, each naming its file (and line where known).
        public var problems: [String]
        /// The problems, one per line.
        public var description: String { problems.joined(separator: "\n") }
    }

    /// How many registries this process built (one, once any is).
    static var builds: Int { ProcessRegistry.buildCount.load(ordering: .relaxed) }

    /// Sets what receives each warning about the program's declarations (a
    /// source left out; a type the program exports or imports that no
    /// source declares), or nil for none, the default. Warnings given before
    /// it is set are in `warnings`.
    public static func setWarningHandler(_ handler: (@Sendable (String) -> Void)?) {
        ProcessRegistry.setWarningHandler(handler)
    }

    /// A warning handler that writes each warning as a line on standard
    /// error, where a Mac program's console messages would go.
    public static let standardErrorWarnings: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Every warning given so far, in order.
    public static var warnings: [String] { ProcessRegistry.warnings }

    /// The places the program's `Info.plist` is looked for, given the
    /// executable's path; the first that exists is read:
    /// `DIR/Info.plist` (beside the executable), `DIR/../Info.plist` (the
    /// `Contents/MacOS/` layout of a Mac bundle), and
    /// `DIR/../share/NAME/Info.plist` (an installed program, such as
    /// `/usr/bin/NAME` with `/usr/share/NAME/Info.plist`).
    public static func infoPlistCandidates(executable: URL) -> [URL] {
        ProcessRegistry.infoPlistCandidates(executable: executable.standardizedFileURL.path).map {
            URL(fileURLWithPath: $0)
        }
    }

    /// The running program's executable, symbolic links resolved.
    public static var executableURL: URL? { ProcessRegistry.executablePath.map { URL(fileURLWithPath: $0) } }

    /// The `Info.plist` read for the running program, if any.
    public static var infoPlistURL: URL? { ProcessRegistry.infoPlistPath.map { URL(fileURLWithPath: $0) } }

    /// Adds the declarations of a property list file (an `Info.plist` or a
    /// declarations file, XML or binary). Throws when the file cannot be
    /// read or parsed (naming file and line), or when the registry is
    /// already built.
    public static func add(contentsOf url: URL) throws(Failure) {
        try add(DeclarationReader.read(path: url.path, source: .application), name: url.path)
    }

    /// Adds the declarations of a property list held in memory; `name`
    /// stands for its file in messages and in each type's origin.
    public static func add(propertyList data: Data, name: String) throws(Failure) {
        let reader: DeclarationReader
        do {
            reader = DeclarationReader(try PropertyList.parse(Array(data)), file: name, source: .application)
        } catch {
            throw Failure(problems: [
                "\(name):\(error.position.line.map { "\($0):" } ?? "") malformed property list: \(error.message)"
            ])
        }
        try add(reader, name: name)
    }

    private static func add(_ reader: DeclarationReader, name: String) throws(Failure) {
        do { try ProcessRegistry.add(reader, name: name) } catch { throw Failure(problems: error.problems) }
    }

    /// Builds the registry now and throws when a source could not be used
    /// (an unreadable `Info.plist`, a file `UTI_DECLARATIONS` names that is
    /// missing or malformed). The registry is kept either way.
    public static func activate() throws(Failure) {
        let problems = self.problems
        if !problems.isEmpty { throw Failure(problems: problems) }
    }

    /// The sources that could not be used when the registry was built.
    public static var problems: [String] { ProcessRegistry.problems }

    /// The registry every `UTType` answers from, built on first use.
    public static var registry: TypeRegistry { ProcessRegistry.registry }

    /// The language descriptions are given in: `LC_ALL`, `LC_MESSAGES` or
    /// `LANG`, the first that is set (nil for `C` and `POSIX`).
    static var language: String? {
        EnvironmentVariable.locale(in: ProcessEnvironment.current)
    }

    /// Gives the warning for a type the program names but no source
    /// declares, once per identifier.
    static func warnUndeclared(_ identifier: String, role: String) {
        ProcessRegistry.warnUndeclared(identifier, role: role)
    }
}
