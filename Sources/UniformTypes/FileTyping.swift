import SharedMIMEInfo
import SystemBase

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The type of a file from its name, what the file system says it is, and
/// (when the name leaves doubt) its first bytes, combined the way GIO's
/// `g_content_type_guess` combines them; then mapped to a uniform type.
///
/// Without a shared-mime-info database in the registry, names are typed by
/// the longest filename extension a declared type claims, and the content
/// of a regular file is matched against `BuiltInSignatures`.
public struct FileTyping: Sendable {
    /// How the answer was reached.
    public enum Basis: String, Sendable {
        /// The file name alone (a glob, or an extension a declared type claims).
        case name
        /// The content alone (magic, or the text/binary fallback).
        case content
        /// Several names matched and the content picked one.
        case nameAndContent = "name+content"
        /// The file system's own kind: folder, package, link, pipe, device, empty file.
        case fileSystem = "file-system"
        /// Nothing decided: an unknown extension's dynamic type, or plain data.
        case unknown
    }

    /// The answer for one name, path or content: the uniform type, and how it
    /// was reached.
    public struct Result: Sendable {
        /// The uniform type.
        public var type: UniformType
        /// The MIME type GIO would report, when a MIME database is loaded.
        public var mimeType: String?
        /// What decided the answer.
        public var basis: Basis
        /// False when neither name nor content settled the answer.
        public var certain: Bool
        /// The extension that decided, when a declared type's extension did.
        public var matchedExtension: String?
        /// MIME types the name's globs gave, best first.
        public var nameCandidates: [String] = []
        /// The MIME type the content gave, when it was read and gave one.
        public var sniffedType: String?
        /// The priority of the magic rule that gave `sniffedType` (0 for the text
        /// fallback).
        public var sniffPriority: Int?
        /// For a folder checked with `treeMagic`: the `x-content/*` types it matches.
        public var contentTypes: [String] = []
        /// What the content says of this answer, when `Options.checkContent`
        /// asked and the path is a regular file with content.
        public var contentCheck: ContentCheck?
        /// False when nothing is at the path, so only its name was typed.
        public var exists = true
        /// Nothing decided, and no extension gave even a dynamic type: the
        /// answer is plain data by default (`Core` where nothing is).
        public var givesNoType: Bool { basis == .unknown && !type.isDynamic }
    }

    /// What a file's content says of the type its name and GIO's rules gave
    /// it (`Options.checkContent`).
    public struct ContentCheck: Sendable {
        /// Whether the content bears the answer out.
        public enum Agreement: Sendable, Hashable {
            /// The content is the answer's format, a kind of it or what it is
            /// a kind of (a ZIP archive for `x.docx`), or text for a text type;
            /// or the answer already came from the content.
            case agrees
            /// The content is another format (a PNG named `x.pdf`), text where
            /// the answer's format is not, or lacks a signature the answer's
            /// format always has (random bytes named `x.heic`).
            case contradicts
            /// The content cannot tell: binary data without a signature, for a
            /// format without one; or nothing decided the answer.
            case undecided

            /// The word for it, as `uti file --json` gives it: `agrees`,
            /// `contradicts` or `undecided`.
            public var name: String {
                switch self {
                case .agrees: "agrees"
                case .contradicts: "contradicts"
                case .undecided: "undecided"
                }
            }
        }

        /// Whether the content bears the answer out.
        public var agreement: Agreement
        /// The content's own type, as `Options.contentAlone` gives it.
        public var content: Result { box.result }
        /// For `contradicts`: why, as text to follow the answer (`the content
        /// is public.png (image/png)`).
        public var reason: String?
        private let box: ResultBox

        /// A check with the content's type `content`.
        public init(agreement: Agreement, content: Result, reason: String?) {
            self.agreement = agreement
            self.box = ResultBox(content)
            self.reason = reason
        }
    }

    /// A result held by reference, so that a result can hold its content's.
    private final class ResultBox: Sendable {
        let result: Result
        init(_ result: Result) { self.result = result }
    }

    /// How a path is examined: whether its content is read, a symbolic link
    /// followed and a folder's contents matched.
    public struct Options: Sendable {
        /// Read the first bytes of a regular file when the name leaves doubt.
        public var sniff = true
        /// Type what a symbolic link points to instead of the link.
        public var followSymbolicLinks = false
        /// Match a folder's contents against the tree rules (`x-content/*`).
        public var treeMagic = false
        /// Also type a regular file by its content alone and say whether
        /// that contradicts the answer (`Result.contentCheck`). The answer
        /// stays GIO's.
        public var checkContent = false
        /// Type a regular file by its content alone, its name left out, as
        /// `file` does, naming the format inside a container
        /// (`ContainerFormat`); folders, links and other kinds stay their
        /// kinds, and a path where nothing is is a failure (`notFound`),
        /// not a name to type.
        public var contentAlone = false
        /// The given settings; by default content is sniffed, links are not
        /// followed and tree rules are not matched.
        public init(sniff: Bool = true, followSymbolicLinks: Bool = false, treeMagic: Bool = false) {
            self.sniff = sniff
            self.followSymbolicLinks = followSymbolicLinks
            self.treeMagic = treeMagic
        }
    }

    /// A file whose type needs its content but that cannot be read, or a
    /// path that cannot be examined.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What kind of failure it is, for a caller to switch on.
        public enum Code: Sendable, Hashable {
            /// Nothing is at the path (`type(ofExistingPath:)` only: other
            /// calls type a missing file by its name).
            case notFound
            /// The path may not be examined, or the file read, by this process.
            case permissionDenied
            /// The path is empty.
            case emptyPath
            /// The file stopped being a regular file between its status
            /// and its opening (replaced meanwhile).
            case notRegularFile
            /// Another system call failed: `systemError` says which, and why.
            case systemCallFailed
            /// A failure made with `init(path:reason:)`, which gives no code.
            case other
        }

        /// The path as text (bytes that are not UTF-8 read as U+FFFD).
        public var path: String
        /// The path's bytes, as the file system holds them.
        public var pathBytes: [UInt8]
        /// Why, as text to follow the path (`cannot read: Permission denied`).
        public var reason: String
        /// What kind of failure it is.
        public var code: Code
        /// The system call that failed, with its path and errno, when one did.
        public var systemError: SystemError?
        /// `path: reason`.
        public var description: String { "\(path): \(reason)" }
        /// A failure for a path given as text, of code `other`.
        public init(path: String, reason: String) {
            self.init(.other, path: Array(path.utf8), reason: reason)
        }
        /// A failure for a path given as bytes, of code `other`; `path`
        /// shows bytes that are not UTF-8 as U+FFFD.
        public init(path: [UInt8], reason: String) {
            self.init(.other, path: path, reason: reason)
        }
        /// A failure of `code` for a path given as bytes; `systemError` when
        /// a system call failed.
        public init(_ code: Code, path: [UInt8], reason: String, systemError: SystemError? = nil) {
            self.path = String(decoding: path, as: UTF8.self)
            self.pathBytes = path
            self.reason = reason
            self.code = code
            self.systemError = systemError
        }

        /// The failure of `call` on `path` with the current errno; the
        /// reason is `what` (when given) and the C library's text.
        static func current(_ call: String, path: [UInt8], _ what: String? = nil) -> Failure {
            let error = SystemError.current(call, path: String(decoding: path, as: UTF8.self))
            let code: Code =
                switch error.kind {
                case .notFound, .notADirectory: .notFound
                case .permissionDenied: .permissionDenied
                default: .systemCallFailed
                }
            return Failure(
                code, path: path, reason: what.map { "\($0): \(error.reason)" } ?? error.reason, systemError: error)
        }
    }

    /// The registry that gives the types, and whose shared-mime-info database
    /// (if any) matches names and content.
    public let registry: TypeRegistry

    /// File typing that answers from `registry`.
    public init(registry: TypeRegistry) { self.registry = registry }

    /// The MIME type of an empty file whose name does not decide.
    public static let emptyMIMEType = "application/x-zerosize"

    // MARK: Names

    /// The last path component of a path's bytes, ignoring trailing
    /// slashes, as text for matching names (bytes that are not UTF-8 read
    /// as U+FFFD: no glob or extension holds them).
    public static func fileName(of path: [UInt8]) -> String {
        let slash = UInt8(ascii: "/")
        var trimmed = path[...]
        while trimmed.count > 1 && trimmed.last == slash { trimmed = trimmed.dropLast() }
        if trimmed.count > 1, let at = trimmed.lastIndex(of: slash) { trimmed = trimmed[(at + 1)...] }
        return String(decoding: trimmed, as: UTF8.self)
    }

    /// The last path component, ignoring trailing slashes.
    public static func fileName(of path: String) -> String {
        // Bytes, as the kernel splits paths: "/" is never part of another character's UTF-8.
        path.utf8.contains(UInt8(ascii: "/")) ? fileName(of: Array(path.utf8)) : path
    }

    /// The candidate extensions of a name, longest first: `a.tar.gz` gives
    /// `tar.gz`, `gz`. A leading dot starts no extension (`.profile` has none).
    /// Of a name longer than a file name can be (255 bytes), the candidates
    /// are the last extension and those of at most 255 bytes: every
    /// candidate of a real file name, and never more text than the name
    /// holds 255 times over, however many dots it has.
    public static func extensions(of name: String) -> [String] {
        let bytes = Array(name.utf8)
        let longest = 255
        var result: [String] = []
        var i = bytes.count - 2
        while i > 0 {
            if bytes[i] == UInt8(ascii: "."), bytes[i - 1] != UInt8(ascii: ".") {
                let length = bytes.count - i - 1
                if length > longest && !result.isEmpty { break }
                result.append(String(decoding: bytes[(i + 1)...], as: UTF8.self))
            }
            i -= 1
        }
        return result.reversed()
    }

    /// The type a file name implies, without looking at any file.
    public func type(forName name: String) -> Result {
        guess(name: name, data: nil)
    }

    /// The type `type(forName:)` gives, without the details: what typing
    /// many names needs. A name the globs know is answered from the
    /// compiled indexes without allocating; most from one probe of the
    /// registry's name table (`NameAnswers`).
    public func preferredType(forName name: String) -> UniformType {
        if let slot = name.utf8.withContiguousStorageIfAvailable({ registry.nameAnswerSlot($0) }) ?? nil {
            return UniformType(registry, slot)
        }
        guard let db = registry.mimeDatabase, !name.utf8.contains(UInt8(ascii: "/")) else {
            return type(forName: name).type
        }
        // One glob decides, as in `guess`; of several, `guess` settles which.
        guard let best = db.soleNameMatch(name) else { return type(forName: name).type }
        let index = Int(best >> 32)
        let byGlob =
            registry.slot(forMIMEName: index).map { UniformType(registry, $0) }
            ?? type(ofMIME: db.nameIndex.name(index))
        return extensionAnswer(name, where: byGlob)?.type ?? byGlob
    }

    /// The longest extension of `name` a type claims; for a name with one
    /// extension, that one unchecked (its lookup says whether it is
    /// claimed), without allocating.
    func longestClaimedExtension(of name: String) -> String? {
        if let sole = Self.soleExtension(of: name) { return String(sole) }
        return Self.extensions(of: name).first { registry.claims(tag: $0) }
    }

    /// The extension of a name that has exactly one (`extensions(of:)`
    /// gives one), else nil.
    static func soleExtension(of name: String) -> Substring? {
        let bytes = name.utf8
        var start: String.Index?
        var previous: UInt8 = 0
        for index in bytes.indices {
            let byte = bytes[index]
            defer { previous = byte }
            guard byte == UInt8(ascii: "."), index != bytes.startIndex, previous != UInt8(ascii: ".") else { continue }
            guard bytes.index(after: index) != bytes.endIndex else { continue }
            if start != nil { return nil }
            start = bytes.index(after: index)
        }
        return start.map { name[$0...] }
    }

    /// Where the name alone decided on `decided`: what `uti EXT` gives for
    /// the longest extension of the name a type claims, when `decided` is
    /// not that type or a subtype of it (a glob naming a narrower format
    /// stands: `x.epsi` is Encapsulated PostScript), their kinds do not
    /// clash (`SystemTypePlacement.kindsClash`), and the name's case did
    /// not decide (`x.C` is C++ by a case-sensitive glob). `x.heic` is then
    /// `public.heic` and `x.m4a` `com.apple.m4a-audio`, as on a Mac and as
    /// `uti EXT` says, though shared-mime-info names their globs
    /// `image/heif` and `audio/mp4`; the MIME type stays the database's.
    func extensionAnswer(_ name: String, where decided: UniformType) -> (type: UniformType, extension: String)? {
        guard let ext = longestClaimedExtension(of: name), let claimed = registry.type(filenameExtension: ext),
            claimed.isDeclared, claimed != decided, !decided.conforms(to: claimed)
        else { return nil }
        let lowered = name.asciiLowercased
        if let db = registry.mimeDatabase, lowered != name,
            db.bestNameMatch(lowered).map({ $0 >> 32 }) != db.bestNameMatch(name).map({ $0 >> 32 })
        {
            return nil
        }
        guard !SystemTypePlacement.kindsClash(kinds(of: decided), kinds(of: claimed)) else { return nil }
        return (claimed, ext)
    }

    /// The declared type claiming the longest extension of `name` and
    /// conforming to `supertype` (`public.data` by default).
    public func declaredType(
        forName name: String, conformingTo supertype: UniformType? = nil,
        excludingSystem: Bool = false
    ) -> (type: UniformType, extension: String)? {
        let filter = supertype ?? registry.declaredType("public.data")
        for ext in Self.extensions(of: name) {
            for type in registry.types(tag: ext, tagClass: .filenameExtension, conformingTo: filter)
            where type.isDeclared {
                if excludingSystem && (type.origin?.source.isSystem ?? false) { continue }
                return (type, ext)
            }
        }
        return nil
    }

    // MARK: Paths

    /// The type of `path`. A folder is the package type its extension names
    /// or `public.folder`; a symbolic link (unless followed), FIFO, socket or
    /// device is its kind and is never opened; an empty regular file is
    /// typed by its name when the name decides, else `application/x-zerosize`;
    /// other regular files are typed by name and,
    /// when the name leaves doubt and `options.sniff` is set, by their first
    /// bytes. A path that does not exist is typed by its name.
    public func type(forPath path: String, options: Options = Options()) throws(Failure) -> Result {
        try type(forPath: Array(path.utf8), options: options)
    }

    /// The type of the path whose bytes are `path` (a name need not be
    /// UTF-8: Linux keeps names as bytes), as `type(forPath:options:)`
    /// types a path given as text.
    public func type(forPath path: [UInt8], options: Options = Options()) throws(Failure) -> Result {
        try type(in: AT_FDCWD, path: path, options: options)
    }

    /// The type of the entry `name` of the open folder `folder` (a relative
    /// path works too), as `type(forPath:options:)` types a path: its status
    /// and content are reached through `folder` (`fstatat`, `openat`), so a
    /// folder renamed meanwhile, or a link in the path to it, changes
    /// nothing, and a symbolic link is followed only when `options` say so.
    public func type(
        ofEntry name: [UInt8], inFolder folder: Int32, options: Options = Options()
    ) throws(Failure)
        -> Result
    {
        try type(in: folder, path: name, options: options)
    }

    private func type(in folder: Int32, path: [UInt8], options: Options) throws(Failure) -> Result {
        var info = stat()
        let flags = options.followSymbolicLinks ? 0 : AT_SYMLINK_NOFOLLOW
        let found = FileStatus.withCPath(path) { fstatat(folder, $0, &info, flags) }
        let name = Self.fileName(of: path)
        guard found == 0 else {
            if (errno == ENOENT || errno == ENOTDIR) && !options.contentAlone {
                var result = type(forName: name)
                result.exists = false
                return result
            }
            throw .current(options.followSymbolicLinks ? "stat" : "lstat", path: path)
        }
        switch info.kind {
        case .directory: return directory(in: folder, path, name: name, options: options)
        case .symbolicLink: return kind("public.symlink", mime: "inode/symlink", name: name)
        case .fifo: return kind("public.named-pipe", mime: "inode/fifo", name: name)
        case .socket: return kind("public.socket", mime: "inode/socket", name: name)
        case .characterDevice: return kind("public.character-special", mime: "inode/chardevice", name: name)
        case .blockDevice: return kind("public.block-special", mime: "inode/blockdevice", name: name)
        default: break
        }
        // Opened at most once, when the content is needed.
        var opened: OpenedFile?
        func content() throws(Failure) -> OpenedFile {
            if let opened { return opened }
            let file = try OpenedFile(in: folder, path, follow: options.followSymbolicLinks, prefix: sniffLength)
            opened = file
            return file
        }
        if options.contentAlone {
            guard options.sniff else { return guess(name: name, data: nil) }
            return info.st_size == 0 ? type(ofContent: []) : try content().typeAlone(by: self)
        }
        var result = try typeByNameAndContent(name, size: Int(info.st_size), options: options, content: content)
        // Content that cannot be read leaves the answer as it is, unchecked.
        if options.checkContent, options.sniff, result.exists, info.st_size > 0, let file = try? content() {
            result.contentCheck = file.prefix.withUnsafeBytes {
                check(result, against: file.typeAlone(by: self), prefix: $0)
            }
        }
        return result
    }

    /// How many first bytes content typing reads.
    var sniffLength: Int { registry.mimeDatabase?.sniffLength ?? BuiltInSignatures.length }

    /// GIO's answer for a regular file of `size` bytes named `name`, whose
    /// content `content` opens when the name leaves doubt.
    private func typeByNameAndContent(
        _ name: String, size: Int, options: Options, content: () throws(Failure) -> OpenedFile
    ) throws(Failure) -> Result {
        let byName = guess(name: name, data: nil)
        guard let db = registry.mimeDatabase else {
            // No shared-mime-info: the built-in signatures read the content.
            guard options.sniff, size > 0 else { return byName }
            return try content().prefix.withUnsafeBytes { guess(name: name, data: $0) }
        }
        if size == 0 {
            // Typed by name when the name decides (as Apple types files, and
            // as shared-mime-info's detection tests expect: `core`, `disk.img`);
            // otherwise there is nothing to go on but the emptiness.
            if byName.basis == .name && (byName.certain || declaredType(forName: name, excludingSystem: true) != nil) {
                return byName
            }
            var result = Result(
                type: type(ofMIME: Self.emptyMIMEType), mimeType: Self.emptyMIMEType, basis: .fileSystem,
                certain: true)
            result.nameCandidates = byName.nameCandidates
            return result
        }
        let declaredByExtension = byName.certain && byName.matchedExtension != nil && byName.nameCandidates.isEmpty
        guard options.sniff, !byName.certain || declaredByExtension else { return byName }
        let data = try content().prefix
        if declaredByExtension {
            return data.withUnsafeBytes { confirm(byName, content: $0, database: db) }
        }
        return data.withUnsafeBytes { guess(name: name, data: $0) }
    }

    /// The type of what is at `path`, as `type(forPath:options:)` gives it,
    /// refusing a path where nothing is (rather than typing its name).
    public func type(ofExistingPath path: String, options: Options = Options()) throws(Failure) -> Result {
        try type(ofExistingPath: Array(path.utf8), options: options)
    }

    /// The type of what is at the path whose bytes are `path`, refusing a
    /// path where nothing is.
    public func type(ofExistingPath path: [UInt8], options: Options = Options()) throws(Failure) -> Result {
        var info = stat()
        guard !path.isEmpty,
            FileStatus.withCPath(path, { options.followSymbolicLinks ? stat($0, &info) : lstat($0, &info) }) == 0
        else {
            if path.isEmpty { throw Failure(.emptyPath, path: path, reason: "empty path") }
            throw .current(options.followSymbolicLinks ? "stat" : "lstat", path: path)
        }
        return try type(forPath: path, options: options)
    }

    /// The type of the regular file at `path` from its content alone, its
    /// name left out, as `file` types it: the check for an upload, whose
    /// name its sender chose. A PNG named `fake.pdf` is `public.png` here,
    /// while `type(forPath:)` takes the name when it decides (as GIO does,
    /// with a shared-mime-info database). A link is followed. Throws when
    /// the file cannot be read or is no regular file.
    public func type(ofContentAt path: String) throws(Failure) -> Result {
        try OpenedFile(in: AT_FDCWD, Array(path.utf8), follow: true, prefix: sniffLength).typeAlone(by: self)
    }

    /// The type of unnamed content (standard input, `uti file -`): its
    /// first bytes alone, as GIO guesses data without a name; nothing at all
    /// is `application/x-zerosize`.
    public func type(ofContent data: [UInt8]) -> Result {
        guard !data.isEmpty else {
            return Result(
                type: type(ofMIME: Self.emptyMIMEType), mimeType: Self.emptyMIMEType, basis: .fileSystem,
                certain: true)
        }
        return data.withUnsafeBytes { guess(name: "", data: $0) }
    }

    /// The type of unnamed content, as `type(ofContent:)` gives it; with
    /// `options.contentAlone`, as `file` types it, naming the format inside
    /// a container from the bytes given.
    public func type(ofContent data: [UInt8], options: Options) -> Result {
        options.contentAlone ? typeAlone(prefix: data, file: nil) : type(ofContent: data)
    }

    /// The type of content alone: its first bytes `prefix`, and `file`
    /// (when the content is a file) for what lies further.
    func typeAlone(prefix: [UInt8], file: (fd: Int32, size: Int)?) -> Result {
        var result = type(ofContent: prefix)
        guard !prefix.isEmpty else { return result }
        var reader =
            file.map { ContentReader(fileDescriptor: $0.fd, size: $0.size) } ?? ContentReader(bytes: prefix)
        let inside = ContainerFormat.identify(&reader).map { (mime: $0.mimeType, identifier: $0.identifier) }
        let signed = result.sniffedType == nil ? prefix.withUnsafeBytes(ContentSignature.format(of:)) : nil
        guard let (mime, identifier) = inside ?? signed ?? Self.volumeFormat(&reader) else { return result }
        let found = identifier.flatMap(registry.declaredType) ?? type(ofMIME: mime)
        // The magic's answer stands where it is that format or a kind of it.
        guard result.type != found, !result.type.conforms(to: found) else { return result }
        result.type = found
        result.mimeType = mime
        result.basis = .content
        result.certain = true
        result.sniffedType = mime
        result.sniffPriority = nil
        return result
    }

    /// An ISO 9660 file system (a CD or DVD image), by the volume descriptor
    /// that starts 32 KiB in: past the first bytes the magic rules read.
    static func volumeFormat(_ reader: inout ContentReader) -> (mime: String, identifier: String?)? {
        guard reader.read(at: 32_769, count: 5) == Array("CD001".utf8) else { return nil }
        return ("application/x-cd-image", "public.iso-image")
    }

    /// The character set `file -i` would name for the first `limit` bytes
    /// of the regular file at `path` (see `TextCharset`).
    public static func charset(
        ofFileAt path: String, limit: Int = TextCharset.defaultLimit,
        follow: Bool = false
    ) throws(Failure) -> String {
        try charset(ofFileAt: Array(path.utf8), limit: limit, follow: follow)
    }

    /// The character set of the regular file whose path's bytes are `path`.
    public static func charset(
        ofFileAt path: [UInt8], limit: Int = TextCharset.defaultLimit,
        follow: Bool = false
    ) throws(Failure) -> String {
        let bytes = try readPrefix(path, count: limit, follow: follow)
        return TextCharset.name(of: bytes, truncated: bytes.count == limit)
    }

    /// Without a MIME database: the content's built-in signature decides
    /// unless the name's type is that format or a kind of it (`x.docx` is a
    /// ZIP archive); a name whose format has a signature the content lacks
    /// is not believed; content nothing recognizes is text or stays as the
    /// name says.
    private func byBuiltInSignatures(_ byName: Result, content: UnsafeRawBufferPointer) -> Result {
        let nameDecided = byName.basis == .name
        if let mime = BuiltInSignatures.mimeType(of: content) {
            let sniffed = signatureType(mime)
            var result: Result
            if nameDecided && (byName.type.conforms(to: sniffed) || isFormat(byName.type, inside: mime)) {
                result = byName
                result.basis = .nameAndContent
            } else {
                result = Result(type: sniffed, mimeType: mime, basis: .content, certain: true)
            }
            result.sniffedType = mime
            return result
        }
        let looksLikeText = BuiltInSignatures.looksLikeText(content)
        // A format a signature (of ours, or `ContentSignature`'s) recognizes
        // is not believed of content that lacks it; asked only of a name that decided.
        if nameDecided,
            ContentSignature.matches(byName.type.identifier, content) != false,
            !BuiltInSignatures.binaryMIMETypes.contains(where: {
                byName.type.conforms(to: signatureType($0)) || isFormat(byName.type, inside: $0)
            })
        {
            return byName
        }
        if looksLikeText {
            return Result(type: type(ofMIME: "text/plain"), mimeType: "text/plain", basis: .content, certain: false)
        }
        if nameDecided { return unknown("", mime: "application/octet-stream") }
        return byName
    }

    /// The type a built-in signature's MIME type stands for.
    func signatureType(_ mime: String) -> UniformType {
        BuiltInSignatures.identifier(for: mime).flatMap(registry.declaredType) ?? type(ofMIME: mime)
    }

    /// Whether `type` is a format built on the container `mime` names
    /// (`BuiltInSignatures.formatsInside`), or a kind of one.
    func isFormat(_ type: UniformType, inside mime: String) -> Bool {
        (BuiltInSignatures.formatsInside[mime] ?? []).contains { identifier in
            registry.declaredType(identifier).map { type.conforms(to: $0) } ?? false
        }
    }

    /// A type only a declared extension gave (no glob knows the name) stands
    /// when the content agrees with it (the type conforms to what the content
    /// is) or says nothing (binary data without magic); otherwise the content
    /// decides, as it would for a name GIO does not know.
    private func confirm(_ byName: Result, content: UnsafeRawBufferPointer, database db: MIMEDatabase) -> Result {
        let (sniffed, priority) = db.sniff(content, ofFileNamed: true)
        var result = byName
        result.sniffedType = sniffed
        result.sniffPriority = sniffed == nil ? nil : priority
        guard let sniffed else {
            // Content that says nothing confirms the name only when it could
            // not have told: a type with a signature (its magic, or one of
            // `ContentSignature`) it lacks is not what the name says.
            let mimeTypes = byName.type.tags(.mimeType)
            let signature = ContentSignature.matches(byName.type.identifier, content)
            if signature == false || (signature == nil && mimeTypes.contains(where: db.hasMagic(for:))) {
                return unknown("", mime: "application/octet-stream")
            }
            if signature == true { result.basis = .nameAndContent }
            result.mimeType = byName.type.preferredMIMEType ?? "application/octet-stream"
            return result
        }
        let sniffedType = type(ofMIME: sniffed)
        if byName.type.conforms(to: sniffedType) {
            result.basis = .nameAndContent
            result.mimeType = byName.type.preferredMIMEType ?? sniffed
            return result
        }
        return Result(
            type: sniffedType, mimeType: sniffed, basis: .content, certain: true,
            sniffedType: sniffed, sniffPriority: priority)
    }

    private func directory(in folder: Int32, _ path: [UInt8], name: String, options: Options) -> Result {
        var result: Result
        if let package = registry.declaredType("com.apple.package"),
            let (type, ext) = declaredType(forName: name, conformingTo: package)
        {
            result = Result(
                type: type, mimeType: type.preferredMIMEType ?? "inode/directory", basis: .name,
                certain: true, matchedExtension: ext)
        } else {
            result = kind("public.folder", mime: "inode/directory", name: name)
        }
        if options.treeMagic, let db = registry.mimeDatabase {
            // A folder given by its descriptor is reached through /proc.
            let relative = folder != AT_FDCWD && path.first != UInt8(ascii: "/")
            let text = String(decoding: path, as: UTF8.self)
            result.contentTypes = db.treeTypes(ofDirectory: relative ? "/proc/self/fd/\(folder)/\(text)" : text)
        }
        return result
    }

    private func kind(_ identifier: String, mime: String, name: String) -> Result {
        let declared = registry.declaredType(identifier) ?? registry.mimeDatabase.map { _ in self.type(ofMIME: mime) }
        guard let declared else { return type(forName: name) }
        return Result(
            type: declared, mimeType: registry.mimeDatabase == nil ? nil : mime, basis: .fileSystem, certain: true)
    }

    /// The declared type for a MIME type (any conformance), or a dynamic one.
    func type(ofMIME mime: String) -> UniformType {
        registry.types(tag: mime, tagClass: .mimeType, conformingTo: nil).first
            ?? registry.declaredType("public.data") ?? registry.dynamicType(tag: mime, tagClass: .mimeType)
    }

    // MARK: Combining

    /// GIO's combination of a name and (optionally) data, then the uniform
    /// type. Names no glob matches fall back to the extensions declared types
    /// claim; a name nothing knows gives its extension's dynamic type.
    public func guess(name: String, data: UnsafeRawBufferPointer?) -> Result {
        guard let db = registry.mimeDatabase else {
            let byName = declaredByName(name) ?? unknown(name, mime: nil)
            guard let data, !data.isEmpty else { return byName }
            return byBuiltInSignatures(byName, content: data)
        }
        var guess = db.guess(name: name, data: data)
        if guess.nameMatches.isEmpty, let declared = declaredByName(name) {
            return declared
        }
        // A name alone whose extension only system data without globs
        // (mime.types) claims: that type, as `uti EXT` gives it, uncertain.
        if data == nil, guess.nameMatches.isEmpty, let ext = longestClaimedExtension(of: name),
            let type = registry.type(filenameExtension: ext), type.isDeclared
        {
            return Result(
                type: type, mimeType: type.preferredMIMEType ?? guess.mimeType, basis: .name, certain: false,
                matchedExtension: ext)
        }
        let octetStream = guess.mimeType == "application/octet-stream" && guess.uncertain
        if octetStream && guess.nameMatches.isEmpty {
            var result = unknown(name, mime: guess.mimeType)
            result.sniffedType = guess.sniffed
            return result
        }
        // Only where the content said nothing (not read, or binary without
        // magic): text content keeps GIO's choice, never becomes a video.
        if guess.uncertain, guess.sniffed == nil, guess.nameMatches.count > 1,
            let preferred = preferredCandidate(name, among: guess.nameMatches)
        {
            guess.mimeType = preferred
        }
        let basis: Basis
        if guess.nameMatches.count == 1 || (guess.sniffed == nil && !guess.nameMatches.isEmpty) {
            basis = .name
        } else if guess.nameMatches.isEmpty || guess.sniffedPriority >= 80 && guess.mimeType == guess.sniffed {
            basis = .content
        } else {
            basis = guess.uncertain ? .name : .nameAndContent
        }
        var result = Result(
            type: type(ofMIME: guess.mimeType), mimeType: guess.mimeType, basis: basis,
            certain: !guess.uncertain, nameCandidates: guess.nameMatches, sniffedType: guess.sniffed,
            sniffPriority: guess.sniffed == nil ? nil : guess.sniffedPriority)
        if basis == .name, result.certain, let (claimed, ext) = extensionAnswer(name, where: result.type) {
            result.type = claimed
            result.matchedExtension = ext
        }
        return result
    }

    /// Of the MIME types several globs give a name (GIO then takes the first
    /// and is uncertain), the one the registry's own answer for the name's
    /// longest claimed extension claims: `x.ts` is an MPEG-2 transport
    /// stream, as `uti ts` says, not a Qt message catalog. Nil when that
    /// answer claims none, or is itself a type of system data: then both
    /// orders come from the same data, and GIO's stands.
    private func preferredCandidate(_ name: String, among candidates: [String]) -> String? {
        for ext in Self.extensions(of: name) where registry.claims(tag: ext) {
            guard let type = registry.type(filenameExtension: ext), type.isDeclared,
                !(type.origin?.source.isSystem ?? true)
            else { return nil }
            let claimed = Set(type.tags(.mimeType).map(TagClass.mimeType.normalize))
            return candidates.first { claimed.contains(TagClass.mimeType.normalize($0)) }
        }
        return nil
    }

    private func declaredByName(_ name: String) -> Result? {
        guard let (type, ext) = declaredType(forName: name, excludingSystem: true) else { return nil }
        return Result(type: type, mimeType: type.preferredMIMEType, basis: .name, certain: true, matchedExtension: ext)
    }

    /// What nothing decided: the type of the name's last extension (so
    /// that `uti file x.EXT` agrees with `uti EXT`) where that type does not
    /// name a MIME type other than `mime`; else `public.data`. An identifier
    /// and a MIME type of one answer never name different types.
    private func unknown(_ name: String, mime: String?) -> Result {
        if let last = Self.extensions(of: name).last,
            let type = registry.type(filenameExtension: last)
        {
            let own = type.tags(.mimeType).map(TagClass.mimeType.normalize)
            if mime == nil || own.isEmpty || own.contains(TagClass.mimeType.normalize(mime!)) {
                return Result(type: type, mimeType: mime, basis: .unknown, certain: false, matchedExtension: nil)
            }
        }
        let data = registry.declaredType("public.data") ?? registry.dynamicType(tag: name, tagClass: .filenameExtension)
        return Result(type: data, mimeType: mime, basis: .unknown, certain: false)
    }

    /// Up to `count` leading bytes of a regular file; FIFOs and devices are
    /// refused before they are opened (and `O_NONBLOCK` guards the race).
    static func readPrefix(_ path: [UInt8], count: Int, follow: Bool) throws(Failure) -> [UInt8] {
        try OpenedFile(in: AT_FDCWD, path, follow: follow, prefix: count).prefix
    }

    /// Up to `count` bytes read from `fd` until end of file (standard input
    /// for `uti file -`); `label` names it in the error.
    public static func readPrefix(of fd: Int32, count: Int, label: String) throws(Failure) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = retryingInterrupts {
                buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, count - filled) }
            }
            if n < 0 { throw .current("read", path: Array(label.utf8), "cannot read") }
            if n == 0 { break }
            filled += n
        }
        return Array(buffer[0..<filled])
    }
}
