import PropertyLists
import SystemBase
import UniformTypes

/// An application's `.desktop` file, as far as opening documents goes
/// (Desktop Entry Specification 1.5).
public struct DesktopEntry: Sendable {
    /// The desktop file ID: the path below `applications/` with `/` as `-`.
    public let id: String
    /// The `.desktop` file's path.
    public let path: String
    /// `Type`; only an `Application` opens documents.
    public var type: String?
    /// `Name`, localized for the language the entry was read with.
    public var name: String?
    /// `Icon`: an icon name or an absolute path, which `%i` passes on.
    public var icon: String?
    /// The `Exec` value, unescaped.
    public var execLine: String?
    /// The `Exec` value parsed; nil when there is no `Exec` key or it cannot be parsed
    /// (the reason is among `diagnostics`).
    public var exec: ExecCommand?
    /// The line of the `Exec` key, from 1; nil when there is no readable one.
    public var execLineNumber: Int?
    /// `TryExec`: a program that must be installed for the entry to be used.
    public var tryExec: String?
    /// `MimeType`: the MIME types the application opens, in the order listed.
    public var mimeTypes: [String] = []
    /// The line of the `MimeType` key, from 1; nil when there is none.
    public var mimeTypeLine: Int?
    /// `Hidden`: the entry counts as deleted, and is never used.
    public var hidden = false
    /// `NoDisplay`: the application is left out of menus, but still opens documents.
    public var noDisplay = false
    /// `Terminal`: the program runs in a terminal.
    public var terminal = false
    /// Problems in the file; an entry with an error in `Exec` cannot run.
    public private(set) var diagnostics: [Diagnostic] = []

    static let group = "Desktop Entry"

    /// Reads the `[Desktop Entry]` group of `file`; `language` picks the
    /// localized `Name`.
    public init(_ file: KeyFile, id: String, language: String? = nil) {
        self.id = id
        path = file.path
        diagnostics = file.diagnostics
        guard let group = file.groups.first, group.name == Self.group else {
            let line = file.groups.first?.line ?? 1
            diagnostics.append(
                Diagnostic(
                    .error, file: path, position: .line(line),
                    "the first group is not [\(Self.group)]"))
            return
        }
        func string(_ key: String, localized: Bool = false) -> String? {
            guard let entry = localized ? group.entry(key, language: language) : group.entry(key) else { return nil }
            do { return try KeyFileValue.string(entry.rawValue) } catch {
                diagnostics.append(
                    Diagnostic(.error, file: path, position: .line(entry.line), "\(key): \(error.message)"))
                return nil
            }
        }
        func boolean(_ key: String) -> Bool {
            guard let entry = group.entry(key) else { return false }
            guard let value = KeyFileValue.boolean(entry.rawValue) else {
                diagnostics.append(
                    Diagnostic(
                        .error, file: path, position: .line(entry.line),
                        "\(key) is \"\(entry.rawValue)\", expected true or false"))
                return false
            }
            return value
        }
        type = string("Type")
        name = string("Name", localized: true)
        icon = string("Icon")
        tryExec = string("TryExec")
        hidden = boolean("Hidden")
        noDisplay = boolean("NoDisplay")
        terminal = boolean("Terminal")
        if let entry = group.entry("Exec"), let value = string("Exec") {
            execLine = value
            execLineNumber = entry.line
            do { exec = try ExecCommand(value) } catch {
                diagnostics.append(Diagnostic(.error, file: path, position: .line(entry.line), error.message))
            }
        }
        if let entry = group.entry("MimeType") {
            mimeTypeLine = entry.line
            do {
                mimeTypes = try KeyFileValue.strings(entry.rawValue).map { String($0.trimmingSpaces) }
            } catch {
                diagnostics.append(
                    Diagnostic(.error, file: path, position: .line(entry.line), "MimeType: \(error.message)"))
            }
            for mime in mimeTypes where !mime.utf8.contains(UInt8(ascii: "/")) {
                diagnostics.append(
                    Diagnostic(
                        .warning, file: path, position: .line(entry.line),
                        "MimeType: \"\(mime)\" has no \"/\""))
            }
        }
    }

    /// Reads the file at `path`.
    public static func read(
        path: String, id: String, language: String? = nil
    ) throws(FileContents.ReadError) -> DesktopEntry {
        DesktopEntry(try KeyFile.read(path: path), id: id, language: language)
    }

    /// Why this entry cannot open documents, or nil when it can: it must be
    /// an Application whose `TryExec` and `Exec` programs are found in
    /// `searchPath` (as GLib requires). `Hidden` is not checked here.
    public func unusableReason(searchPath: String?) -> String? {
        guard type == "Application" else {
            return type.map { "Type is \($0), not Application" } ?? "no Type key"
        }
        if let tryExec, !tryExec.isEmpty, ExecCommand.locate(tryExec, searchPath: searchPath) == nil {
            return "TryExec program \"\(tryExec)\" is not installed"
        }
        guard let exec else {
            return execLine == nil ? "no Exec key" : "its Exec line cannot be read"
        }
        if ExecCommand.locate(exec.program, searchPath: searchPath) == nil {
            return "Exec program \"\(exec.program)\" is not installed"
        }
        return nil
    }
}
