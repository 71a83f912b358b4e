import SharedMIMEInfo
import SystemBase

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension FileTyping {
    /// Whether `result` conforms to `supertype`, and its content (when
    /// checked) does not say otherwise: an answer whose content contradicts
    /// it conforms strictly only when the content's own type conforms too
    /// (a JPEG named `x.png` is strictly an image, but not strictly a PNG).
    public func strictlyConforms(_ result: Result, to supertype: UniformType) -> Bool {
        guard result.type.conforms(to: supertype) else { return false }
        guard let check = result.contentCheck, check.agreement == .contradicts else { return true }
        return check.content.type.conforms(to: supertype)
    }

    /// Whether `answer` stands against `content`, the content alone's type;
    /// `prefix` is the file's first bytes.
    func check(_ answer: Result, against content: Result, prefix: UnsafeRawBufferPointer) -> ContentCheck {
        func verdict(_ agreement: ContentCheck.Agreement) -> ContentCheck {
            let mime = content.mimeType ?? content.type.preferredMIMEType ?? "application/octet-stream"
            return ContentCheck(
                agreement: agreement, content: content,
                reason: agreement == .contradicts ? "the content is \(content.type.identifier) (\(mime))" : nil)
        }
        switch answer.basis {
        case .content, .nameAndContent: return verdict(.agrees)
        case .fileSystem, .unknown: return verdict(.undecided)
        case .name: break
        }
        let named = answer.type
        let isText = { (type: UniformType) in
            self.registry.declaredType("public.text").map(type.conforms(to:)) ?? false
        }
        let evidence = ContentEvidence(of: content)
        if evidence != .format, ContentSignature.matches(named.identifier, prefix) == true { return verdict(.agrees) }
        switch evidence {
        case .format:
            let found = content.type
            let agrees =
                named.conforms(to: found) || found.conforms(to: named) || (isText(named) && isText(found))
                || related(answer.mimeType, content.mimeType)
                || (content.mimeType.map { isFormat(named, inside: $0) } ?? false)
            if agrees { return verdict(.agrees) }
            // A rule weaker than the default priority (50) only breaks ties
            // between names, and never stands against one: a shared
            // library's ELF header reads as a program's, and Python bytecode
            // whose first constant is HTML as HTML.
            return verdict((content.sniffPriority ?? 50) < 50 ? .undecided : .contradicts)
        case .text where isText(named):
            return verdict(.agrees)
        case .nothing where isText(named):
            // Text in UTF-16 or UTF-32 holds NUL bytes, yet is text.
            let text = TextCharset.name(of: Array(prefix), truncated: true) != "binary"
            return verdict(text ? .agrees : .contradicts)
        case .text, .nothing:
            // Content without the signature of the name's format contradicts
            // it where that format's files all carry one (images, sound and
            // video, archives; and documents, against text): elsewhere the
            // magic rules may not know every version (Python bytecode, keys).
            var signed = Self.signedKinds
            if evidence == .text { signed.insert("public.composite-content") }
            let strict = !kinds(of: named).isDisjoint(with: signed)
            return verdict(strict && hasSignature(named, prefix: prefix) ? .contradicts : .undecided)
        }
    }

    /// The kinds (`SystemTypePlacement.kinds`) whose formats all start with
    /// a signature the magic rules know.
    private static let signedKinds: Set<String> = ["public.image", "public.audiovisual-content", "public.archive"]

    /// The kinds of content `type` is of (`SystemTypePlacement.kinds`).
    func kinds(of type: UniformType) -> Set<String> {
        SystemTypePlacement.kinds { identifier in registry.declaredType(identifier).map(type.conforms(to:)) ?? false }
    }

    /// Whether two MIME types name one format, or one a kind of the other,
    /// in the MIME database (`video/x-matroska` is a kind of
    /// `application/x-matroska`; `public.heic` and `public.heif` share
    /// `image/heif`).
    private func related(_ first: String?, _ second: String?) -> Bool {
        guard let first, let second, let db = registry.mimeDatabase else { return false }
        let a = db.canonical(first), b = db.canonical(second)
        return a == b || db.isSubclass(a, of: b) || db.isSubclass(b, of: a)
    }

    /// What content alone showed: a format (magic, a built-in signature or
    /// a container's inside), text by the text test, or nothing.
    private enum ContentEvidence {
        case format, text, nothing

        init(of content: Result) {
            switch (content.sniffedType, content.sniffPriority) {
            case ("text/plain", 0): self = .text
            case (.some, _): self = .format
            case (nil, _):
                self = content.basis == .content && content.mimeType == "text/plain" ? .text : .nothing
            }
        }
    }

    /// Whether `type`'s format has a signature that content matching none
    /// lacks: one of `ContentSignature`, a magic rule of the MIME database
    /// for one of its MIME types, or (without a database) a built-in one.
    private func hasSignature(_ type: UniformType, prefix: UnsafeRawBufferPointer) -> Bool {
        if let matched = ContentSignature.matches(type.identifier, prefix) { return !matched }
        if let db = registry.mimeDatabase { return type.tags(.mimeType).contains(where: db.hasMagic(for:)) }
        return BuiltInSignatures.binaryMIMETypes.contains {
            type.conforms(to: signatureType($0)) || isFormat(type, inside: $0)
        }
    }
}

/// A regular file opened for its content: the first bytes, read once, and
/// the descriptor for what lies further (a container's directory).
final class OpenedFile {
    let fd: Int32
    let size: Int
    /// The first bytes, as many as content typing reads.
    let prefix: [UInt8]

    /// Opens `path` relative to `folder` without blocking on a FIFO or
    /// following a final link (unless `follow`), refuses what is no regular
    /// file, and reads up to `prefix` bytes.
    init(in folder: Int32, _ path: [UInt8], follow: Bool, prefix count: Int) throws(FileTyping.Failure) {
        let fd = FileStatus.withCPath(path) {
            openat(folder, $0, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (follow ? 0 : O_NOFOLLOW))
        }
        guard fd >= 0 else { throw .current("open", path: path, "cannot read") }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = SystemError.current("fstat", path: String(decoding: path, as: UTF8.self))
            close(fd)
            throw FileTyping.Failure(
                .systemCallFailed, path: path, reason: "is no longer a regular file", systemError: error)
        }
        guard info.isRegularFile else {
            close(fd)
            throw FileTyping.Failure(.notRegularFile, path: path, reason: "is no longer a regular file")
        }
        do {
            prefix = try FileTyping.readPrefix(of: fd, count: count, label: String(decoding: path, as: UTF8.self))
        } catch {
            close(fd)
            throw error
        }
        self.fd = fd
        self.size = Int(info.st_size)
    }

    deinit { close(fd) }

    /// The file's type by its content alone.
    func typeAlone(by typing: FileTyping) -> FileTyping.Result {
        typing.typeAlone(prefix: prefix, file: (fd, size))
    }
}
