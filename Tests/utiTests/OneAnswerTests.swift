import Foundation
import TestSupport
import Testing

/// The machine's shared-mime-info, as a user's runs see it.
private let systemData = ["XDG_DATA_DIRS": "/usr/share"]

/// Every `*.ext` glob of this machine's MIME database, each extension once
/// (case-insensitively), in the database's order.
private func systemExtensions() throws -> [String] {
    let globs = try String(contentsOfFile: "/usr/share/mime/globs2", encoding: .utf8)
    var seen: Set<String> = [], result: [String] = []
    for line in globs.split(separator: "\n") where !line.hasPrefix("#") {
        let fields = line.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count >= 3, fields[2].hasPrefix("*.") else { continue }
        let ext = String(fields[2].dropFirst(2))
        guard !ext.isEmpty, !ext.contains(where: { "*?[".contains($0) }), seen.insert(ext.lowercased()).inserted else {
            continue
        }
        result.append(ext)
    }
    return result
}

/// `uti file x.EXT` never contradicts `uti EXT`: where the name decides, the
/// file's type is the lookup's type, a subtype or a supertype of it.
@Suite struct FileTypeAgreesWithLookupTests {
    /// Names whose system type stands against the lookup's, and why
    /// (README, "Typing files"): their kinds clash, or the glob's case decides.
    static let systemStands: [String: String] = [
        "mts": "MPEG-2 transport stream (shared-mime-info) against TypeScript (bundled): a movie is no text",
        "otc": "OpenDocument chart template against OpenType font collection: a document is no font",
        "qti": "QtiPlot document (text) against QuickTime image",
        "smf": "StarMath formula (a document) against MIDI audio",
        "C": "the case-sensitive glob *.C is C++; the extension c is C",
    ]

    @Test func everySystemExtension() throws {
        let extensions = try systemExtensions()
        try #require(extensions.count > 500, "the system MIME database is missing")
        let lookup = try Run(["lookup", "--json", "--as-extension"] + extensions, environment: systemData)
        let files = try Run(["file", "--json", "--no-sniff"] + extensions.map { "x." + $0 }, environment: systemData)
        let looked = try #require(lookup.json() as? [[String: Any]])
        let typed = try #require(files.json() as? [[String: Any]])
        try #require(looked.count == extensions.count && typed.count == extensions.count)
        var checked = 0, stands: Set<String> = []
        for (ext, (l, f)) in zip(extensions, zip(looked, typed)) {
            let lookupType = try #require(l["type"] as? [String: Any], "uti \(ext): \(l)")
            let fileType = try #require(f["type"] as? [String: Any], "uti file x.\(ext): \(f)")
            guard lookupType["declared"] as? Bool == true, f["basis"] as? String == "name",
                f["certain"] as? Bool == true
            else { continue }
            checked += 1
            let a = lookupType["identifier"] as! String, b = fileType["identifier"] as! String
            // The same type, or a glob that names a narrower format (`x.epsi`);
            // never a broader one: `x.m4a` is `com.apple.m4a-audio`, as `uti m4a`.
            let related = a == b || (fileType["supertypes"] as! [String]).contains(a)
            if !related && Self.systemStands[ext] != nil {
                stands.insert(ext)
                continue
            }
            #expect(related, "uti \(ext) is \(a), but uti file x.\(ext) is \(b) (\(f["mimeType"] ?? "?"))")
        }
        #expect(checked > 500)
        // Each exception still is one on this machine's database.
        for ext in Self.systemStands.keys where extensions.contains(ext) {
            #expect(stands.contains(ext), "x.\(ext) no longer needs its exception")
        }
    }

    /// `uti batch --file` types names through its own fast route; it gives
    /// what `uti file --no-sniff -b` gives for every name.
    @Test func batchAnswersAsFileForEveryName() throws {
        let names =
            try systemExtensions().map { "x." + $0 } + ["a.tar.gz", "Makefile", "x.ts", "core", "README.md", "x.py"]
        let batch = try Run(["batch", "--file"], stdin: names.joined(separator: "\n") + "\n", environment: systemData)
        let file = try Run(["file", "--no-sniff", "-b"] + names, environment: systemData)
        #expect(batch.status == 0 && file.status == 0)
        let a = batch.lines, b = file.lines
        try #require(a.count == names.count && b.count == names.count)
        for (name, (x, y)) in zip(names, zip(a, b)) {
            #expect(x == y, "\(name): batch --file says \(x), file says \(y)")
        }
    }

    @Test(arguments: [
        ("f.py", "public.python-script"), ("f.pl", "public.perl-script"), ("f.pm", "public.perl-script"),
        ("f.rb", "public.ruby-script"), ("f.php", "public.php-script"), ("x.exe", "com.microsoft.windows-executable"),
        ("x.heic", "public.heic"), ("x.eps", "com.adobe.encapsulated-postscript"), ("x.f4v", "com.adobe.flash.video"),
        ("x.wma", "com.microsoft.windows-media-wma"), ("x.svgz", "public.svg-image"), ("x.j2k", "public.jpeg-2000"),
    ])
    func scriptsAndFormatsConformToTheirDeclaredType(name: String, declared: String) throws {
        let folder = TemporaryFolder("uti-conforms")
        let path = folder.path + "/" + name
        try "some words\n".write(toFile: path, atomically: false, encoding: .utf8)
        let run = try Run(["conforms", "--file", path, declared], environment: systemData)
        #expect(run.status == 0, "\(name) should conform to \(declared): \(run.stderr)")
    }

    @Test func filterFindsSourceFilesInARealTree() throws {
        let folder = TemporaryFolder("uti-source-tree")
        let files = [
            "tool.py": "import os\nprint(os.name)\n", "lib.pm": "package Lib;\n1;\n", "app.rb": "puts 1\n",
            "page.php": "<?php echo 1; ?>\n", "main.c": "int main(void) { return 0; }\n", "run.sh": "#!/bin/sh\necho\n",
            "notes.txt": "plain words\n", "photo.png": "\u{89}PNG\r\n\u{1A}\n", "__init__.py": "", "empty.pm": "",
        ]
        for (name, text) in files {
            try text.write(toFile: folder.path + "/" + name, atomically: false, encoding: .utf8)
        }
        let paths = files.keys.sorted().map { folder.path + "/" + $0 }
        let run = try Run(["filter", "public.source-code"] + paths, environment: systemData)
        let kept = Set(run.lines.map { ($0 as NSString).lastPathComponent })
        // Empty files whose extension a declared type claims are typed by it (several globs or one).
        #expect(
            kept == ["tool.py", "lib.pm", "app.rb", "page.php", "main.c", "run.sh", "__init__.py", "empty.pm"],
            "\(run.stdout)\(run.stderr)")
    }

    /// Extensions only mime.types claims (no glob): the name gives the type
    /// `uti EXT` gives, through every door; content that says nothing gives
    /// plain data, its supertype, with GIO's MIME type.
    @Test func extensionsOnlyMimeTypesClaims() throws {
        let folder = TemporaryFolder("uti-mime-types")
        try "application/x-uti-clr 1clr\nchemical/x-cache cache\nvideo/mp2t mpl\n"
            .write(toFile: folder.path + "/mime.types", atomically: false, encoding: .utf8)
        let environment = ["XDG_DATA_DIRS": "/usr/share", "UTI_MIME_TYPES": folder.path + "/mime.types"]
        // x.mpl: two globs, and the candidate `uti mpl` claims, as for x.ts.
        let names = ["x.1clr", "x.cache", "x.mpl"]
        let lookup = try Run(["-b", "1clr", "cache", "mpl"], environment: environment)
        let file = try Run(["file", "--no-sniff", "-b"] + names, environment: environment)
        let batch = try Run(["batch", "--file"], stdin: names.joined(separator: "\n") + "\n", environment: environment)
        #expect(lookup.status == 0 && file.status == 0 && batch.status == 0, "\(file.stderr)\(batch.stderr)")
        #expect(
            lookup.lines == [
                "org.freedesktop.mime.application.x-uti-clr", "org.freedesktop.mime.chemical.x-cache",
                "public.mpeg-2-transport-stream",
            ])
        #expect(file.lines == lookup.lines)
        #expect(batch.lines == lookup.lines)
        try Data([0, 1, 2, 0xFE, 0xFF, 0, 7]).write(to: URL(fileURLWithPath: folder.path + "/data.1clr"))
        let typed = try Run(["file", folder.path + "/data.1clr"], environment: environment)
        #expect(typed.stdout.hasSuffix(": public.data (application/octet-stream, data) by unknown, uncertain\n"))
    }

    /// A name that gives no type is no answer from `batch --file` either.
    @Test func batchRefusesWhatFileRefuses() throws {
        let batch = try Run(["batch", "--file"], stdin: "Core\nx.pdf\n", environment: systemData)
        #expect(batch.status == 1 && batch.lines == ["", "com.adobe.pdf"])
        #expect(batch.stderr == "uti: standard input line 1: Core: the name gives no type\n")
        #expect(try Run(["file", "--no-sniff", "-b", "Core"], environment: systemData).status == 1)
        let json = try Run(["batch", "--file", "--json"], stdin: "x.pdf\n", environment: systemData)
        #expect(json.stdout.contains("\"exists\":null"))
        let query = try Run(["batch"], stdin: "x\u{7F}.pdf\n", environment: systemData)
        #expect(query.status == 1)
        // A name no file system holds (over 255 bytes, or a path of 4,096 or
        // more) is refused as `file` refuses it, at once however many dots
        // it has.
        let long = String(repeating: "a.", count: 16_000) + "jpg"
        let tooLong = try Run(
            ["batch", "--file"], stdin: String(repeating: "a", count: 256) + ".jpg\n" + long + "\nx.jpg\n",
            environment: systemData)
        #expect(tooLong.status == 1 && tooLong.lines == ["", "", "public.jpeg"])
        #expect(tooLong.stderr.hasPrefix("uti: standard input line 1: aaaa"))
        #expect(tooLong.stderr.components(separatedBy: ": File name too long\n").count == 3)
        let file = try Run(
            ["file", "--no-sniff", "-b", String(repeating: "a", count: 256) + ".jpg"], environment: systemData)
        #expect(file.status == 1 && file.stderr.hasSuffix(": File name too long\n"))
    }

    /// `conforms` types an existing path that names no type as written, even
    /// with a `/` (a MIME type no type claims names only a dynamic type).
    @Test func conformsTypesAnExistingPathWithASlash() throws {
        let folder = TemporaryFolder("uti-conforms-path")
        try folder.makeFolder("dir")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]).write(
            to: URL(fileURLWithPath: folder.path + "/dir/pic.dat"))
        let run = try Run(
            ["conforms", "-v", "dir/pic.dat", "public.image"], environment: systemData, directory: folder.path)
        #expect(run.status == 0 && run.stdout == "public.png conforms to public.image\n", "\(run.stdout)\(run.stderr)")
        #expect(
            try Run(["conforms", "text/plain", "public.text"], environment: systemData, directory: folder.path).status
                == 0)
    }
}

/// One answer names one type: the identifier `uti file` gives is the MIME
/// type's type, a subtype or a supertype of it, or the declared type of
/// the extension that decided (`x.heic`: `public.heic`, `image/heif`).
@Suite struct FileAnswerAgreesWithItselfTests {
    @Test func overRealFiles() throws {
        var paths: [String] = []
        for root in ["/etc", "/usr/share/mime", "/usr/lib/os-release", "/usr/share/doc"] {
            guard let walker = FileManager.default.enumerator(atPath: root) else {
                paths.append(root)
                continue
            }
            for case let relative as String in walker where paths.count < 6000 {
                var info = stat()
                let path = root + "/" + relative
                if lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && access(path, R_OK) == 0 {
                    paths.append(path)
                }
            }
        }
        try #require(paths.count > 100)
        let run = try Run(["file", "--json"] + paths, environment: systemData)
        let results = try #require(try run.json() as? [[String: Any]])
        var mimeTypes: [String] = []
        for result in results {
            if let mime = result["mimeType"] as? String, !mimeTypes.contains(mime) { mimeTypes.append(mime) }
        }
        let lookup = try Run(["lookup", "--json", "--unfiltered", "--as-mime"] + mimeTypes, environment: systemData)
        let types = try #require(try lookup.json() as? [[String: Any]])
        var ofMIME: [String: [String: Any]] = [:]
        for (mime, answer) in zip(mimeTypes, types) { ofMIME[mime] = answer["type"] as? [String: Any] }
        var compared = 0
        for result in results {
            guard let type = result["type"] as? [String: Any], let mime = result["mimeType"] as? String,
                let named = ofMIME[mime]
            else { continue }
            compared += 1
            let a = type["identifier"] as! String, b = named["identifier"] as! String
            let agrees =
                a == b || (type["supertypes"] as! [String]).contains(b)
                || (named["supertypes"] as! [String]).contains(a)
                || result["matchedExtension"] is String
            #expect(agrees, "\(result["path"]!): \(a) with \(mime), which is \(b)")
        }
        #expect(compared > 100)
    }
}
