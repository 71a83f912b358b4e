import SystemBase

#if canImport(Glibc)
    import Glibc
#endif

/// A folder of Documents that items are routed to: a relative path of one
/// or more names, none of them `.` or `..`, with no leading `/`
/// (`Pictures`, `Media/Videos`). It is made when missing, one component at
/// a time, never through a symbolic link.
public struct RouteFolder: Sendable, Hashable, CustomStringConvertible {
    /// The names from Documents down, each a single path component.
    public let components: [FileName]

    /// Reads `text` as a route folder: repeated and trailing slashes are
    /// dropped (`Media//Videos/` is `Media/Videos`). Throws a phrase saying
    /// what is wrong with it.
    public init(_ text: String) throws(RouteError) {
        try self.init(bytes: Array(text.utf8))
    }

    /// Reads the path `bytes` as a route folder, as `init(_:)` does.
    public init(bytes: [UInt8]) throws(RouteError) {
        let slash = UInt8(ascii: "/")
        if bytes.isEmpty { throw RouteError(.badFolder, "the folder is empty") }
        if bytes.first == slash {
            throw RouteError(.badFolder, "the folder must be inside DOCUMENTS: no leading \"/\"")
        }
        if bytes.contains(0) { throw RouteError(.badFolder, "the folder holds a NUL byte") }
        if bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw RouteError(.badFolder, "the folder holds a control character (a line break, a tab)")
        }
        if bytes.count >= Int(PATH_MAX) {
            throw RouteError(.badFolder, "the folder is longer than \(Int(PATH_MAX) - 1) bytes")
        }
        let parts = bytes.split(separator: slash).map { FileName(Array($0)) }
        for part in parts {
            if part.bytes == [UInt8(ascii: ".")] || part.bytes == [UInt8(ascii: "."), UInt8(ascii: ".")] {
                throw RouteError(.badFolder, "the folder must not hold \".\" or \"..\" components")
            }
            if part.bytes.count > FileName.maximumLength {
                throw RouteError(.badFolder, "a component of the folder is longer than \(FileName.maximumLength) bytes")
            }
        }
        components = parts
    }

    /// The path as it is written in messages: components escaped, joined by `/`.
    public var description: String { components.map(\.escaped).joined(separator: "/") }

    /// The path as bytes, components joined by `/`.
    public var bytes: [UInt8] { Array(components.map(\.bytes).joined(separator: [UInt8(ascii: "/")])) }
}

/// A rule of where items go: those whose type conforms to `type` go to
/// `folder`. Where it was given is kept for messages (`origin`).
public struct InboxRoute: Sendable {
    /// Where a rule was given: a `--route` argument, or a line of a routes file.
    public enum Origin: Sendable, Equatable, CustomStringConvertible {
        /// The argument of a `--route` option, as given.
        case option(String)
        /// The line (from 1) of the routes file at `path`.
        case file(path: String, line: Int)

        /// `--route 'TYPE=FOLDER'` or `FILE:LINE`.
        public var description: String {
            switch self {
            case .option(let text): "--route \(Self.quoted(text))"
            case .file(let path, let line): "\(path):\(line)"
            }
        }

        private static func quoted(_ text: String) -> String {
            text.contains("'") ? "\"\(text)\"" : "'\(text)'"
        }
    }

    /// The type, as given: an extension, a MIME type or an identifier.
    public var type: String
    /// The type's identifier once resolved (`resolved(using:)`); until
    /// then, `type` as given.
    public var identifier: String
    /// The folder of Documents items of the type go to.
    public var folder: RouteFolder
    /// Where the rule was given.
    public var origin: Origin

    /// A rule sending items of `type` to `folder`, given at `origin`.
    public init(type: String, folder: RouteFolder, origin: Origin) {
        self.type = type
        self.identifier = type
        self.folder = folder
        self.origin = origin
    }

    /// Reads `TYPE=FOLDER`, the argument of `--route` (the first `=`
    /// ends the type). Throws naming the argument.
    public static func option(_ argument: String) throws(RouteError) -> InboxRoute {
        try option(bytes: Array(argument.utf8))
    }

    /// Reads `TYPE=FOLDER` given as bytes (an argument need not be UTF-8:
    /// the folder is made under the bytes given), as `option(_:)` does.
    public static func option(bytes argument: [UInt8]) throws(RouteError) -> InboxRoute {
        let origin = Origin.option(FileName(argument).escaped)
        guard let equals = argument.firstIndex(of: UInt8(ascii: "=")) else {
            throw RouteError(.syntax, "give TYPE=FOLDER", at: origin)
        }
        let type = String(decoding: argument[..<equals], as: UTF8.self)
        if type.isEmpty { throw RouteError(.syntax, "the type is empty; give TYPE=FOLDER", at: origin) }
        do {
            let folder = try RouteFolder(bytes: Array(argument[(equals + 1)...]))
            return InboxRoute(type: type, folder: folder, origin: origin)
        } catch {
            throw error.at(origin)
        }
    }

    /// The rules of a routes file: one `TYPE FOLDER` a line, TYPE the first
    /// word, FOLDER the rest of the line with its surrounding spaces and
    /// tabs trimmed; blank lines and lines whose first character other than
    /// a space or tab is `#` are skipped. Throws at the first bad line, as
    /// `PATH:LINE: …`.
    public static func parseFile(_ bytes: [UInt8], path: String) throws(RouteError) -> [InboxRoute] {
        var routes: [InboxRoute] = []
        let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t"), cr = UInt8(ascii: "\r")
        let isBlank = { (byte: UInt8) in byte == space || byte == tab }
        // A byte order mark, as some editors write, is no part of the first line.
        let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
        for (index, rawLine) in text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .enumerated()
        {
            let origin = Origin.file(path: path, line: index + 1)
            var line = rawLine
            if line.last == cr { line = line.dropLast() }
            let trimmed = line.drop(while: isBlank)
            if trimmed.isEmpty || trimmed.first == UInt8(ascii: "#") { continue }
            guard let text = String(validating: trimmed, as: UTF8.self) else {
                throw RouteError(.syntax, "the line is not UTF-8 text", at: origin)
            }
            let type = String(text.prefix { $0 != " " && $0 != "\t" })
            var rest = Substring(text.dropFirst(type.count))
            while let first = rest.first, first == " " || first == "\t" { rest = rest.dropFirst() }
            while let last = rest.last, last == " " || last == "\t" { rest = rest.dropLast() }
            if rest.isEmpty {
                throw RouteError(.syntax, "no folder after the type \"\(type)\"; give TYPE FOLDER", at: origin)
            }
            do { routes.append(InboxRoute(type: type, folder: try RouteFolder(String(rest)), origin: origin)) } catch {
                throw error.at(origin)
            }
        }
        return routes
    }
}

/// A routing rule that cannot be used: what is wrong and where it was given.
public struct RouteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem it is, for a caller to switch on.
    public enum Code: Sendable, Hashable {
        /// The rule is not `TYPE=FOLDER` (`TYPE FOLDER` in a file).
        case syntax
        /// The folder is empty, absolute, or holds `.` or `..`.
        case badFolder
        /// The folder is the Inbox or inside it.
        case folderInInbox
        /// The type names no type.
        case unknownType
        /// The routes file cannot be read.
        case unreadableFile
    }

    /// What kind of problem it is.
    public var code: Code
    /// What is wrong, in words.
    public var message: String
    /// Where the rule was given, when a rule is at fault.
    public var origin: InboxRoute.Origin?

    /// A problem of `code`, told by `message`, with the rule at `origin`.
    public init(_ code: Code, _ message: String, at origin: InboxRoute.Origin? = nil) {
        self.code = code
        self.message = message
        self.origin = origin
    }

    /// The same problem, at `origin`.
    func at(_ origin: InboxRoute.Origin) -> RouteError { RouteError(code, message, at: origin) }

    /// `ORIGIN: MESSAGE` (`routes:3: …`, `--route 'png=/x': …`).
    public var description: String { origin.map { "\($0): \(message)" } ?? message }
}

/// What the routing of an item needs to know of it: its type, every type it
/// conforms to, and whether its content contradicts its name.
public struct EntryTyping: Sendable {
    /// The type's identifier (`public.png`).
    public var identifier: String
    /// The identifiers of the type and of every type it conforms to, in
    /// lower case.
    public var conformsTo: Set<String>
    /// Why the content contradicts the name (`the content is public.plain-text (text/plain)`), when it does.
    public var contradiction: String?

    /// An item of type `identifier`, conforming to `conformsTo` (itself
    /// included or not), whose content contradicts its name for the reason
    /// `contradiction`, when it does.
    public init(identifier: String, conformsTo: some Sequence<String>, contradiction: String? = nil) {
        self.identifier = identifier
        self.conformsTo = Set(conformsTo.map { $0.lowercased() } + [identifier.lowercased()])
        self.contradiction = contradiction
    }
}

/// Where an inbox run puts each item by its type: the rules in order (the
/// first whose type the item conforms to wins), the folder for items whose
/// content contradicts their name, and the function that types an item.
public struct InboxRouting: Sendable {
    /// The rules, in order.
    public var routes: [InboxRoute]
    /// Where an item whose content contradicts its name goes; nil: Documents itself.
    public var quarantine: RouteFolder?
    /// Types the entry `name` of the open folder `folder` (a descriptor) by
    /// its name and content, never following a symbolic link; nil when it
    /// cannot be typed (it then stays in Documents itself).
    public var typeEntry: @Sendable (_ folder: Int32, _ name: FileName) -> EntryTyping?

    /// Routing by `routes`, with `quarantine` for contradicted items, typing
    /// items with `typeEntry`.
    public init(
        routes: [InboxRoute], quarantine: RouteFolder? = nil,
        typeEntry: @escaping @Sendable (_ folder: Int32, _ name: FileName) -> EntryTyping?
    ) {
        self.routes = routes
        self.quarantine = quarantine
        self.typeEntry = typeEntry
    }

    /// Where an item so typed goes.
    public struct Decision: Sendable, Equatable {
        /// The folder of Documents; nil for Documents itself.
        public var folder: RouteFolder?
        /// The rule that sent it there (its index in `routes`), if one did.
        public var route: Int?
        /// Why it was not routed by its name, when its content contradicts it.
        public var notRoutedByName: String?
    }

    /// The folder for an item of `typing`: the first rule whose type the
    /// item conforms to; an item whose content contradicts its name goes to
    /// `quarantine` (or stays in Documents itself) whatever its name says;
    /// an item no rule takes, or that could not be typed, stays in Documents.
    public func decide(_ typing: EntryTyping?) -> Decision {
        guard let typing else { return Decision() }
        if let contradiction = typing.contradiction {
            return Decision(folder: quarantine, route: nil, notRoutedByName: contradiction)
        }
        for (index, route) in routes.enumerated() where typing.conformsTo.contains(route.identifier.lowercased()) {
            return Decision(folder: route.folder, route: index, notRoutedByName: nil)
        }
        return Decision()
    }

    /// Refuses a folder that lies in the Inbox named `inbox` of Documents
    /// (the Inbox given by name, not path): the first rule or the
    /// quarantine at fault.
    public func checkOutsideInbox(named inbox: String) throws(RouteError) {
        let name = FileName(inbox)
        for route in routes where route.folder.components.first == name {
            throw RouteError(.folderInInbox, "the folder \(route.folder) is inside the Inbox", at: route.origin)
        }
        if let quarantine, quarantine.components.first == name {
            throw RouteError(.folderInInbox, "--quarantine \(quarantine): the folder is inside the Inbox")
        }
    }
}

extension InboxRoute {
    /// The default routes file: `$XDG_CONFIG_HOME/uti/routes`
    /// (`~/.config/uti/routes`); nil when neither `XDG_CONFIG_HOME` nor
    /// `HOME` is set.
    public static func defaultFilePath(_ variables: [String: String] = ProcessEnvironment.current) -> String? {
        XDGBaseDirectories(variables).configHome.map { $0 == "/" ? "/uti/routes" : $0 + "/uti/routes" }
    }

    /// The rules of the routes file at `path` (`parseFile(_:path:)`); nil
    /// when it need not exist (`mustExist` false, as for the default file)
    /// and is not there for this user: missing, or behind a folder the user
    /// may not search (another user's configuration folder). Throws when it
    /// cannot be read or a line is bad.
    public static func readFile(_ path: String, mustExist: Bool) throws(RouteError) -> [InboxRoute]? {
        if !mustExist {
            var info = stat()
            if stat(path, &info) != 0 && [ENOENT, ENOTDIR, EACCES].contains(errno) { return nil }
        }
        let bytes: [UInt8]
        do { bytes = try FileContents.read(path, limit: 1 << 20) } catch {
            if error.code == .notFound && !mustExist { return nil }
            throw RouteError(.unreadableFile, "\(error)")
        }
        return try parseFile(bytes, path: path)
    }

    /// The rules with each type resolved by `resolve`, which gives a type's
    /// identifier or throws a phrase saying why there is none; the first
    /// that names no type is thrown, at its rule.
    public static func resolved(
        _ routes: [InboxRoute], using resolve: (String) throws(RouteError) -> String
    ) throws(RouteError) -> [InboxRoute] {
        var result: [InboxRoute] = []
        for var route in routes {
            do { route.identifier = try resolve(route.type) } catch { throw error.at(route.origin) }
            result.append(route)
        }
        return result
    }
}
