/// Where a type made from system data sits in Apple's conformance tree,
/// beyond its `sub-class-of` parents: under the abstract type its media
/// type names, and under the one its shared-mime-info generic icon names.
///
/// Apple's own declarations keep their conformance; this only places the
/// types that system data creates (`org.freedesktop.mime.*`).
public enum SystemTypePlacement {
    /// The abstract type each media type belongs under. `text/*` goes under
    /// `public.plain-text`, as every `text/*` is a `text/plain`; Apple's
    /// video containers are movies.
    public static let mediaRoots: [String: String] = [
        "text": "public.plain-text",
        "image": "public.image",
        "audio": "public.audio",
        "video": "public.movie",
        "font": "public.font",
    ]

    /// The abstract type each shared-mime-info generic icon stands for,
    /// where the icon is a reliable sign: for the MIME types both Apple and
    /// shared-mime-info know, Apple's types agree with the mapping (85% or
    /// more; `tools/check-system-placement.py` measures it). Icons that
    /// disagree with Apple are not used: `text-x-script` (JSON formats carry
    /// it), `x-office-document`, `image-x-generic` (drawings, DICOM) and
    /// `audio-x-generic` (playlists). `application-x-executable` has no type
    /// both know; its types are programs and cartridge ROMs.
    public static let genericIconRoots: [String: String] = [
        "package-x-generic": "public.archive",
        "x-office-spreadsheet": "public.spreadsheet",
        "x-office-presentation": "public.presentation",
        "video-x-generic": "public.movie",
        "font-x-generic": "public.font",
        "application-x-executable": "public.executable",
    ]

    /// The kinds of content that tell formats apart where a system type and
    /// a declared type claim one extension. A type is of each of these it
    /// conforms to, and a document (`public.composite-content`) when it
    /// conforms to that or is content of none of the first four kinds (a
    /// spreadsheet, a formula). Two types whose kinds are both known and
    /// share none clash (Qt's `.ts` message catalog is text, no movie; an
    /// OpenDocument chart template is no font), and the system's answer
    /// then stands for its own names.
    public static let kindRoots = [
        "public.text", "public.image", "public.audiovisual-content", "public.font", "public.archive",
        "public.executable",
    ]

    /// The kinds of a type, given whether it conforms to an identifier.
    public static func kinds(conformsTo: (String) -> Bool) -> Set<String> {
        var kinds = Set(kindRoots.filter(conformsTo))
        let document = "public.composite-content"
        if conformsTo(document)
            || (conformsTo("public.content") && kindRoots.prefix(4).allSatisfy { !kinds.contains($0) })
        {
            kinds.insert(document)
        }
        return kinds
    }

    /// Whether two types' kinds are both known and have none in common.
    public static func kindsClash(_ a: Set<String>, _ b: Set<String>) -> Bool {
        !a.isEmpty && !b.isEmpty && a.isDisjoint(with: b)
    }

    /// The abstract types a system type with `mimeType` and `genericIcon`
    /// belongs under, media type first, each once.
    public static func roots(mimeType: String, genericIcon: String?) -> [String] {
        var roots: [String] = []
        let media = TagClass.mimeType.normalize(mimeType).split(separator: "/").first.map(String.init) ?? ""
        if let root = mediaRoots[media] { roots.append(root) }
        if let icon = genericIcon, let root = genericIconRoots[icon], !roots.contains(root) { roots.append(root) }
        return roots
    }
}
