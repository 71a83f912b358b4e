import Foundation
import TestSupport
import Testing

/// The machine's MIME data as a user's runs see it: shared-mime-info and
/// /etc/mime.types (Debian's shared-mime-info and media-types, which
/// .ci/run installs).
private let systemData = ["XDG_DATA_DIRS": "/usr/share", "UTI_MIME_TYPES": "/etc/mime.types"]

/// The exceptions docs/preferred-mime-types.md lists: class, extensions.
private func documentedExceptions() throws -> [(name: String, extensions: [String])] {
    let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../docs/preferred-mime-types.md")
    let text = try String(contentsOf: page, encoding: .utf8)
    let start = try #require(text.range(of: "<!-- exceptions: begin"))
    let end = try #require(text.range(of: "<!-- exceptions: end -->"))
    var classes: [(String, [String])] = []
    for line in text[start.upperBound..<end.lowerBound].split(separator: "\n") where line.hasPrefix("| ") {
        let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        guard cells.count >= 3, cells[0] != "class", !cells[0].hasPrefix("---") else { continue }
        let extensions = cells[1].split(separator: "`", omittingEmptySubsequences: false).enumerated().filter {
            $0.offset % 2 == 1
        }.map {
            String($0.element)
        }
        classes.append((cells[0], extensions))
    }
    return classes
}

/// One format, one type: the preferred MIME type of `uti EXT` is what
/// `uti file x.EXT` prints (GIO's), for every extension the registry
/// knows, but for the classes docs/preferred-mime-types.md lists.
@Suite struct PreferredMIMETypeTests {
    @Test func everyExtensionPrefersTheMIMETypeFilesAreTypedWith() throws {
        let exceptions = try documentedExceptions()
        #expect(
            exceptions.map(\.name) == [
                "no MIME type", "several formats", "narrower", "several globs", "other format", "compound",
                "not data",
            ])
        let listed = Dictionary(
            exceptions.flatMap { entry in entry.extensions.map { ($0, entry.name) } }, uniquingKeysWith: { a, _ in a })
        #expect(listed.count == exceptions.reduce(0) { $0 + $1.extensions.count }, "an extension is listed twice")

        let all = try Run(["tags", "public.item", "--class", "extension", "--descendants"], environment: systemData)
        let extensions = all.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
        try #require(extensions.count > 2000, "\(all.stderr)")
        // One process each: the lookups, and the files by name as `uti file` types them.
        let lookups = try Run(
            ["batch", "--as-extension", "--json"], stdin: extensions.joined(separator: "\n") + "\n",
            environment: systemData)
        let names = extensions.map { "x." + $0 }
        let mimeTypes = try Run(["file", "--no-sniff", "--mime", "--"] + names, environment: systemData)
        let files = try Run(
            ["batch", "--file", "--json"], stdin: names.joined(separator: "\n") + "\n", environment: systemData)
        let looked = lookups.stdout.split(separator: "\n").map {
            try? JSONSerialization.jsonObject(with: Data($0.utf8))
        }
        let typed = files.stdout.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) }
        try #require(looked.count == extensions.count && typed.count == extensions.count)
        try #require(mimeTypes.lines.count == extensions.count, "\(mimeTypes.stderr)")

        var differing: [String: String] = [:]
        for (i, ext) in extensions.enumerated() {
            let lookup = try #require((looked[i] as? [String: Any])?["type"] as? [String: Any], "uti \(ext)")
            let preferred = lookup["preferredMIMEType"] as? String
            let printed = mimeTypes.lines[i]
            guard preferred?.lowercased() != printed.lowercased() else { continue }
            let file = try #require(typed[i] as? [String: Any], "uti file \(names[i])")
            let fileType = file["type"] as? [String: Any] ?? [:]
            let identifier = lookup["identifier"] as! String, fileIdentifier = fileType["identifier"] as? String
            let why =
                "uti \(ext) is \(identifier) (\(preferred ?? "no MIME type")); "
                + "uti file \(names[i]) is \(fileIdentifier ?? "?") (\(printed))"
            if preferred == nil && printed == "application/octet-stream" {
                differing[ext] = "no MIME type"
                continue
            }
            guard let name = listed[ext] else {
                Issue.record("not a documented exception: \(why)")
                continue
            }
            differing[ext] = name
            // What each class says of its extensions holds.
            switch name {
            case "several formats":
                #expect(fileIdentifier == identifier, "\(why)")
            case "narrower":
                #expect((fileType["supertypes"] as? [String] ?? []).contains(identifier), "\(why)")
            case "several globs":
                #expect(
                    file["certain"] as? Bool == false && (file["nameCandidates"] as? [String] ?? []).count > 1,
                    "\(why)")
            case "other format":
                let related =
                    (fileType["supertypes"] as? [String] ?? []).contains(identifier)
                    || (lookup["supertypes"] as? [String] ?? []).contains(fileIdentifier ?? "")
                #expect(fileIdentifier != identifier && !related, "\(why)")
            case "compound":
                #expect(ext.contains("."), "\(why)")
            default:
                break
            }
        }
        // Each extension listed still differs, and for the reason given.
        for (ext, name) in listed.sorted(by: { $0.key < $1.key }) {
            #expect(differing[ext] == name, "\(ext) is listed as \(name) but \(differing[ext] ?? "agrees")")
        }
        // Most extensions agree: what differs is the documented few.
        #expect(differing.count < extensions.count / 10)

        // `--mime` prints the preferred MIME type; where the type has none,
        // what `uti file --no-sniff --mime` prints when the file is that
        // type or a narrower one (or the type is dynamic); else nothing.
        let expected = try extensions.indices.map { i -> String in
            let lookup = try #require((looked[i] as? [String: Any])?["type"] as? [String: Any])
            if let preferred = lookup["preferredMIMEType"] as? String { return preferred }
            let fileType = (typed[i] as? [String: Any])?["type"] as? [String: Any] ?? [:]
            let identifier = lookup["identifier"] as? String
            let related =
                lookup["dynamic"] as? Bool == true || fileType["identifier"] as? String == identifier
                || (fileType["supertypes"] as? [String] ?? []).contains(identifier ?? "")
            return related ? mimeTypes.lines[i] : ""
        }
        let unanswered = expected.filter(\.isEmpty).count
        #expect(unanswered < 30, "\(unanswered) extensions with no MIME type through --mime")
        let lookupMIME = try Run(["lookup", "--mime", "--as-extension"] + extensions, environment: systemData)
        #expect(lookupMIME.status == (unanswered > 0 ? 1 : 0), "\(lookupMIME.stderr)")
        #expect(lookupMIME.lines == expected)
        let batchMIME = try Run(
            ["batch", "--mime", "--as-extension"], stdin: extensions.joined(separator: "\n") + "\n",
            environment: systemData)
        #expect(batchMIME.lines == expected, "\(batchMIME.stderr)")
        // Where the lookup answers, it is the file's answer but for the documented classes.
        for (i, ext) in extensions.enumerated() where !expected[i].isEmpty && differing[ext] == nil {
            #expect(expected[i].lowercased() == mimeTypes.lines[i].lowercased(), "uti \(ext) --mime")
        }
        let fileMIME = try Run(
            ["batch", "--file", "--mime"], stdin: names.joined(separator: "\n") + "\n", environment: systemData)
        #expect(
            fileMIME.lines == mimeTypes.lines, "uti batch --file --mime prints what uti file --no-sniff --mime does")
    }

    /// A borrowed preferred MIME type answers the type that holds it: the
    /// identifiers stay Apple's (docs/preferred-mime-types.md).
    @Test func aSharedNameAnswersOneType() throws {
        let preferred = try Run(["--mime", "m4a", "m4v", "heic"], environment: systemData)
        #expect(preferred.lines == ["audio/mp4", "video/mp4", "image/heif"], "\(preferred.stderr)")
        // A file is typed as its extension is, with the database's MIME type.
        let files = try Run(["file", "--no-sniff", "--mime", "x.m4a", "x.m4v", "x.heic"], environment: systemData)
        #expect(files.lines == ["audio/mp4", "video/mp4", "image/heif"], "\(files.stdout)")
        let byName = try Run(["file", "--no-sniff", "-b", "x.m4a", "x.m4v", "x.heic"], environment: systemData)
        #expect(byName.lines == ["com.apple.m4a-audio", "com.apple.m4v-video", "public.heic"])
        let back = try Run(["-b", "audio/mp4", "video/mp4", "image/heif"], environment: systemData)
        #expect(back.lines == ["public.mpeg-4-audio", "public.mpeg-4", "public.heif"])
        for (a, b) in [("m4a", "audio/mp4"), ("audio/x-m4a", "audio/mp4"), ("m4v", "video/mp4")] {
            #expect(try Run(["equal", a, b], environment: systemData).status == 1, "\(a) \(b)")
            #expect(try Run(["conforms", a, b], environment: systemData).status == 0, "\(a) \(b)")
        }
    }

    @Test func pythonIsOneType() throws {
        let folder = TemporaryFolder("uti-python")
        try "print(1)\n".write(toFile: folder.path + "/x.py", atomically: false, encoding: .utf8)
        let equal = try Run(["equal", "py", "text/x-python"], environment: systemData)
        #expect(equal.status == 0, "\(equal.stdout)\(equal.stderr)")
        let lookup = try Run(["-b", "py"], environment: systemData)
        let file = try Run(["file", "-b", "x.py"], environment: systemData, directory: folder.path)
        #expect(lookup.lines == ["public.python-script"] && file.lines == lookup.lines, "\(file.stdout)")
        let mime = try Run(["file", "--mime", "x.py"], environment: systemData, directory: folder.path)
        #expect(mime.lines == ["text/x-python"])
        let preferred = try Run(["tags", "py", "--class", "mime", "--preferred"], environment: systemData)
        #expect(preferred.lines == ["text/x-python"])
        // The identifier the system type had names the merged type.
        let old = try Run(["-b", "--as-identifier", "org.freedesktop.mime.text.x-python"], environment: systemData)
        #expect(old.lines == ["public.python-script"], "\(old.stderr)")
        // Apple's conformance stays.
        for supertype in ["public.script", "public.source-code", "public.plain-text"] {
            let conforms = try Run(["conforms", "public.python-script", supertype], environment: systemData)
            #expect(conforms.status == 0, "public.python-script conforms to \(supertype)")
            let byFile = try Run(
                ["conforms", "--file", "x.py", supertype], environment: systemData, directory: folder.path)
            #expect(byFile.status == 0, "x.py conforms to \(supertype)")
        }
    }

    /// Formats the system and Apple's data both describe: one identifier for the name and the
    /// extension, and the system's MIME type preferred.
    @Test(arguments: [
        ("pl", "public.perl-script", "application/x-perl"), ("rb", "public.ruby-script", "application/x-ruby"),
        ("php", "public.php-script", "application/x-php"),
        ("js", "com.netscape.javascript-source", "application/javascript"),
        ("gz", "org.gnu.gnu-zip-archive", "application/gzip"), ("bz2", "public.bzip2-archive", "application/x-bzip"),
        ("wav", "com.microsoft.waveform-audio", "audio/x-wav"), ("avi", "public.avi", "video/x-msvideo"),
        ("exe", "com.microsoft.windows-executable", "application/x-ms-dos-executable"),
        ("heic", "public.heic", "image/heif"), ("rtf", "public.rtf", "application/rtf"),
        ("aif", "public.aiff-audio", "audio/x-aiff"),
    ])
    func oneIdentifierAndTheSystemsName(ext: String, identifier: String, mime: String) throws {
        let lookup = try Run(["--json", ext], environment: systemData)
        let type = try #require((lookup.json() as? [[String: Any]])?.first?["type"] as? [String: Any])
        #expect(type["identifier"] as? String == identifier)
        #expect(type["preferredMIMEType"] as? String == mime)
        let file = try Run(["file", "--no-sniff", "x." + ext], environment: systemData)
        #expect(file.lines.first?.hasPrefix("x.\(ext): \(identifier) (\(mime),") == true, "\(file.stdout)")
    }
}
