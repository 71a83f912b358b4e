// Written as code for Apple's framework is written: only Foundation and
// UniformTypeIdentifiers, no platform conditions. Every constant, initializer
// and member of `UTType` and `UTTagClass` (macOS 11 to 15.2, and
// `init(identifier:allowUndeclared:)`) is used here; the expected answers are
// Apple's documented identifiers and direct conformances, and the tags of
// Apple's own declarations.
import Foundation
import Testing
import UniformTypeIdentifiers

/// Every static constant with its documented identifier and the parents
/// Apple's documentation says it conforms to.
let appleConstants: [(type: UTType, identifier: String, parents: [String])] = [
    (.item, "public.item", []),
    (.content, "public.content", []),
    (.compositeContent, "public.composite-content", ["public.content"]),
    (.diskImage, "public.disk-image", []),
    (.data, "public.data", ["public.item"]),
    (.directory, "public.directory", ["public.item"]),
    (.resolvable, "com.apple.resolvable", []),
    (.symbolicLink, "public.symlink", ["public.item", "com.apple.resolvable"]),
    (.executable, "public.executable", ["public.item"]),
    (.mountPoint, "com.apple.mount-point", ["public.item", "com.apple.resolvable"]),
    (.aliasFile, "com.apple.alias-file", ["public.data", "com.apple.resolvable"]),
    (.urlBookmarkData, "com.apple.bookmark", ["public.data", "com.apple.resolvable"]),
    (.url, "public.url", ["public.data"]),
    (.fileURL, "public.file-url", ["public.url"]),
    (.text, "public.text", ["public.data", "public.content"]),
    (.plainText, "public.plain-text", ["public.text"]),
    (.utf8PlainText, "public.utf8-plain-text", ["public.plain-text"]),
    (.utf16ExternalPlainText, "public.utf16-external-plain-text", ["public.plain-text"]),
    (.utf16PlainText, "public.utf16-plain-text", ["public.plain-text"]),
    (.delimitedText, "public.delimited-values-text", ["public.text"]),
    (.commaSeparatedText, "public.comma-separated-values-text", ["public.delimited-values-text"]),
    (.tabSeparatedText, "public.tab-separated-values-text", ["public.delimited-values-text"]),
    (
        .utf8TabSeparatedText, "public.utf8-tab-separated-values-text",
        ["public.tab-separated-values-text", "public.utf8-plain-text"]
    ),
    (.rtf, "public.rtf", ["public.text"]),
    (.html, "public.html", ["public.text"]),
    (.xml, "public.xml", ["public.text"]),
    (.yaml, "public.yaml", ["public.text"]),
    (.css, "public.css", ["public.text"]),
    (.sourceCode, "public.source-code", ["public.plain-text"]),
    (.assemblyLanguageSource, "public.assembly-source", ["public.source-code"]),
    (.cSource, "public.c-source", ["public.source-code"]),
    (.objectiveCSource, "public.objective-c-source", ["public.source-code"]),
    (.swiftSource, "public.swift-source", ["public.source-code"]),
    (.cPlusPlusSource, "public.c-plus-plus-source", ["public.source-code"]),
    (.objectiveCPlusPlusSource, "public.objective-c-plus-plus-source", ["public.source-code"]),
    (.cHeader, "public.c-header", ["public.source-code"]),
    (.cPlusPlusHeader, "public.c-plus-plus-header", ["public.source-code"]),
    (.script, "public.script", ["public.source-code"]),
    (.appleScript, "com.apple.applescript.text", ["public.script"]),
    (.osaScript, "com.apple.applescript.script", ["public.data", "public.script"]),
    (
        .osaScriptBundle, "com.apple.applescript.script-bundle",
        ["com.apple.bundle", "com.apple.package", "public.script"]
    ),
    (.javaScript, "com.netscape.javascript-source", ["public.source-code", "public.executable"]),
    (.shellScript, "public.shell-script", ["public.script"]),
    (.perlScript, "public.perl-script", ["public.shell-script"]),
    (.pythonScript, "public.python-script", ["public.shell-script"]),
    (.rubyScript, "public.ruby-script", ["public.shell-script"]),
    (.phpScript, "public.php-script", ["public.shell-script"]),
    (.makefile, "public.make-source", ["public.script"]),
    (.json, "public.json", ["public.text"]),
    (.propertyList, "com.apple.property-list", ["public.data"]),
    (.xmlPropertyList, "com.apple.xml-property-list", ["public.xml", "com.apple.property-list"]),
    (.binaryPropertyList, "com.apple.binary-property-list", ["com.apple.property-list"]),
    (.pdf, "com.adobe.pdf", ["public.data", "public.composite-content"]),
    (.rtfd, "com.apple.rtfd", ["com.apple.package", "public.composite-content"]),
    (.flatRTFD, "com.apple.flat-rtfd", ["public.data", "public.composite-content"]),
    (.webArchive, "com.apple.webarchive", ["public.data", "public.composite-content"]),
    (.image, "public.image", ["public.data", "public.content"]),
    (.jpeg, "public.jpeg", ["public.image"]),
    (.tiff, "public.tiff", ["public.image"]),
    (.gif, "com.compuserve.gif", ["public.image"]),
    (.png, "public.png", ["public.image"]),
    (.icns, "com.apple.icns", ["public.image"]),
    (.bmp, "com.microsoft.bmp", ["public.image"]),
    (.ico, "com.microsoft.ico", ["public.image"]),
    (.rawImage, "public.camera-raw-image", ["public.image"]),
    (.svg, "public.svg-image", ["public.image"]),
    (.livePhoto, "com.apple.live-photo", []),
    (.heif, "public.heif", ["public.heif-standard"]),
    (.heic, "public.heic", ["public.heif-standard"]),
    (.heics, "public.heics", ["public.heif-standard"]),
    (.webP, "org.webmproject.webp", ["public.image"]),
    (.exr, "com.ilm.openexr-image", ["public.image"]),
    (.dng, "com.adobe.raw-image", ["public.image"]),
    (.jpegxl, "public.jpeg-xl", ["public.image"]),
    (.threeDContent, "public.3d-content", ["public.content"]),
    (.usd, "com.pixar.universal-scene-description", ["public.3d-content", "public.data"]),
    (.usdz, "com.pixar.universal-scene-description-mobile", ["public.3d-content", "public.data"]),
    (.realityFile, "com.apple.reality", ["public.data"]),
    (.sceneKitScene, "com.apple.scenekit.scene", ["public.3d-content", "public.data"]),
    (.arReferenceObject, "com.apple.arobject", ["public.data"]),
    (.audiovisualContent, "public.audiovisual-content", ["public.data", "public.content"]),
    (.movie, "public.movie", ["public.audiovisual-content"]),
    (.video, "public.video", ["public.movie"]),
    (.audio, "public.audio", ["public.audiovisual-content"]),
    (.quickTimeMovie, "com.apple.quicktime-movie", ["public.movie"]),
    (.mpeg, "public.mpeg", ["public.movie"]),
    (.mpeg2Video, "public.mpeg-2-video", ["public.video"]),
    (.mpeg2TransportStream, "public.mpeg-2-transport-stream", ["public.movie"]),
    (.mp3, "public.mp3", ["public.audio"]),
    (.mpeg4Movie, "public.mpeg-4", ["public.movie"]),
    (.mpeg4Audio, "public.mpeg-4-audio", ["public.mpeg-4", "public.audio"]),
    (.appleProtectedMPEG4Audio, "com.apple.protected-mpeg-4-audio", ["public.audio"]),
    (.appleProtectedMPEG4Video, "com.apple.protected-mpeg-4-video", ["com.apple.m4v-video"]),
    (.avi, "public.avi", ["public.movie"]),
    (.aiff, "public.aiff-audio", ["public.aifc-audio"]),
    (.wav, "com.microsoft.waveform-audio", ["public.audio"]),
    (.midi, "public.midi-audio", ["public.audio"]),
    (.playlist, "public.playlist", []),
    (.m3uPlaylist, "public.m3u-playlist", ["public.text", "public.playlist"]),
    (.folder, "public.folder", ["public.directory"]),
    (.volume, "public.volume", ["public.folder"]),
    (.package, "com.apple.package", ["public.directory"]),
    (.bundle, "com.apple.bundle", ["public.directory"]),
    (.pluginBundle, "com.apple.plugin", ["com.apple.bundle", "com.apple.package"]),
    (.spotlightImporter, "com.apple.metadata-importer", ["com.apple.plugin"]),
    (.quickLookGenerator, "com.apple.quicklook-generator", ["com.apple.plugin"]),
    (.xpcService, "com.apple.xpc-service", ["com.apple.bundle", "com.apple.package"]),
    (.framework, "com.apple.framework", ["com.apple.bundle"]),
    (.application, "com.apple.application", ["public.executable"]),
    (
        .applicationBundle, "com.apple.application-bundle",
        ["com.apple.application", "com.apple.bundle", "com.apple.package"]
    ),
    (.applicationExtension, "com.apple.application-and-system-extension", ["com.apple.xpc-service"]),
    (.unixExecutable, "public.unix-executable", ["public.data", "public.executable"]),
    (.exe, "com.microsoft.windows-executable", ["public.data", "public.executable"]),
    (.systemPreferencesPane, "com.apple.systempreference.prefpane", ["com.apple.package", "com.apple.bundle"]),
    (.archive, "public.archive", []),
    (.gzip, "org.gnu.gnu-zip-archive", ["public.data", "public.archive"]),
    (.bz2, "public.bzip2-archive", ["public.data", "public.archive"]),
    (.zip, "public.zip-archive", ["com.pkware.zip-archive"]),
    (.appleArchive, "com.apple.archive", ["public.data", "public.archive"]),
    (.tarArchive, "public.tar-archive", ["public.data", "public.archive"]),
    (.spreadsheet, "public.spreadsheet", ["public.content"]),
    (.presentation, "public.presentation", ["public.composite-content"]),
    (.database, "public.database", []),
    (.message, "public.message", []),
    (.contact, "public.contact", []),
    (.vCard, "public.vcard", ["public.text", "public.contact"]),
    (.toDoItem, "public.to-do-item", []),
    (.calendarEvent, "public.calendar-event", []),
    (.emailMessage, "public.email-message", ["public.message"]),
    (.internetLocation, "com.apple.internet-location", ["public.data"]),
    (.internetShortcut, "com.microsoft.internet-shortcut", ["public.data"]),
    (.font, "public.font", []),
    (.bookmark, "public.bookmark", []),
    (.pkcs12, "com.rsa.pkcs-12", ["public.data"]),
    (.x509Certificate, "public.x509-certificate", ["public.data"]),
    (.epub, "org.idpf.epub-container", ["public.data", "public.composite-content"]),
    (.log, "public.log", []),
    (.ahap, "com.apple.haptics.ahap", []),
    (.geoJSON, "public.geojson", []),
    (.linkPresentationMetadata, "com.apple.linkpresentation.metadata", ["public.data"]),
]

/// Documented parents macOS 12's CoreTypes (the bundled data) does not declare.
let macOS12Lacks: [String: [String]] = [
    "public.executable": ["public.item"],
    "com.apple.applescript.script-bundle": ["public.script"],
    "public.mpeg-4-audio": ["public.mpeg-4"],
]

@Suite struct AppleStyleCodeTests {
    @Test func everyConstantHasApplesIdentifierAndConformance() {
        #expect(appleConstants.count == 140)
        for (type, identifier, documentedParents) in appleConstants {
            // The bundled data is Apple's macOS 12 CoreTypes; the macOS 15
            // header documents three parents it does not declare yet.
            let notInMacOS12 = macOS12Lacks[identifier] ?? []
            let parents = documentedParents.filter { !notInMacOS12.contains($0) }
            for parent in notInMacOS12 {
                #expect(
                    !type.conforms(to: UTType(parent)!),
                    "\(identifier): Data/CoreTypes.plist changed; update macOS12Lacks")
            }
            #expect(type.identifier == identifier)
            #expect(type.isDeclared, "\(identifier) is declared")
            #expect(!type.isDynamic)
            #expect(type.localizedDescription?.isEmpty == false, "\(identifier) has a description")
            for parent in parents {
                let supertype = UTType(parent)
                #expect(supertype != nil, "\(parent) is declared")
                if let supertype {
                    #expect(type.conforms(to: supertype), "\(identifier) conforms to \(parent)")
                    #expect(type.supertypes.contains(supertype))
                    #expect(supertype.isSupertype(of: type) && type.isSubtype(of: supertype))
                }
            }
        }
        #expect(Set(appleConstants.map(\.type)).count == 140)
    }

    @Test func tagsAreApples() {
        let expected: [(UTType, String?, String?)] = [
            (.jpeg, "jpeg", "image/jpeg"), (.png, "png", "image/png"), (.gif, "gif", "image/gif"),
            (.tiff, "tiff", "image/tiff"), (.pdf, "pdf", "application/pdf"), (.plainText, "txt", "text/plain"),
            (.html, "html", "text/html"), (.json, "json", "application/json"), (.xml, "xml", "application/xml"),
            (.zip, "zip", "application/zip"), (.mp3, "mp3", "audio/mpeg"), (.mpeg4Movie, "mp4", "video/mp4"),
            (.quickTimeMovie, "mov", "video/quicktime"), (.commaSeparatedText, "csv", "text/csv"),
            (.rtf, "rtf", "text/rtf"), (.svg, "svg", "image/svg+xml"), (.heic, "heic", "image/heic"),
            (.webP, "webp", "image/webp"), (.swiftSource, "swift", nil), (.epub, "epub", "application/epub+zip"),
            (.folder, nil, nil), (.item, nil, nil),
        ]
        // Where the system's MIME database names the format, the preferred
        // MIME type is its name (public.rtf: application/rtf, public.heic:
        // image/heif); `tags` stays what Apple declares, in Apple's order.
        let systemNames = ["public.rtf": "application/rtf", "public.heic": "image/heif"]
        for (type, ext, mime) in expected {
            // Where Apple declares none, the system's MIME data may give one (public.folder: inode/directory).
            #expect(type.preferredFilenameExtension == (ext ?? type.base.preferredFilenameExtension), "\(type)")
            #expect(
                type.preferredMIMEType == (systemNames[type.identifier] ?? mime ?? type.base.preferredMIMEType),
                "\(type)")
            #expect(type.preferredMIMEType == type.base.preferredMIMEType, "\(type)")
            #expect(type.tags[.filenameExtension]?.first == ext)
            #expect(type.tags[.mimeType]?.first == mime)
        }
        #expect(UTType.jpeg.tags[.filenameExtension] == ["jpeg", "jpg", "jpe"])
        #expect(UTType.rtf.tags[.mimeType] == ["text/rtf"])
        let wave = UTType(filenameExtension: "wav")
        #expect(wave?.preferredMIMEType == "audio/x-wav")
        #expect(wave?.tags[.mimeType] == ["audio/vnd.wave", "audio/wav", "audio/wave", "audio/x-wav"])
        let python = UTType(filenameExtension: "py")
        #expect(python?.identifier == "public.python-script")
        #expect(python?.preferredMIMEType == "text/x-python")
        #expect(python?.tags[.mimeType] == ["text/x-python-script"])
        #expect(UTType(mimeType: "text/x-python") == python)
    }

    @Test func lookingUpByTag() throws {
        #expect(UTType(filenameExtension: "jpg") == .jpeg)
        #expect(UTType(filenameExtension: "JPG") == .jpeg)
        #expect(UTType(filenameExtension: "txt", conformingTo: .text) == .plainText)
        #expect(UTType(mimeType: "image/png") == .png)
        #expect(UTType(mimeType: "text/html; charset=utf-8") == .html)
        #expect(UTType(tag: "pdf", tagClass: .filenameExtension, conformingTo: nil) == .pdf)
        #expect(UTType(tag: "application/pdf", tagClass: .mimeType, conformingTo: .data) == .pdf)
        #expect(UTType(filenameExtension: "") == nil)
        #expect(UTType.types(tag: "mp4", tagClass: .filenameExtension, conformingTo: nil).first == .mpeg4Movie)
        #expect(UTType.types(tag: "", tagClass: .filenameExtension, conformingTo: nil).isEmpty)

        // A tag no type claims gives a dynamic type carrying it.
        let unknown = try #require(UTType(filenameExtension: "xyzzy"))
        #expect(unknown.isDynamic && !unknown.isDeclared && !unknown.isPublic)
        #expect(unknown.identifier.hasPrefix("dyn.a"))
        #expect(unknown.conforms(to: .data))
        #expect(unknown.tags[.filenameExtension] == ["xyzzy"])
        #expect(unknown.localizedDescription == nil)
        #expect(UTType(unknown.identifier) == unknown)
        let filtered = try #require(UTType(filenameExtension: "jpg", conformingTo: .text))
        #expect(filtered.isDynamic && filtered.conforms(to: .text))
    }

    @Test func identifiersAndTheirProperties() throws {
        #expect(UTType("public.jpeg") == .jpeg)
        #expect(UTType("PUBLIC.JPEG") == .jpeg)
        #expect(UTType("com.example.nobody-declares-this") == nil)
        let kept = try #require(UTType(identifier: "com.example.nobody-declares-this", allowUndeclared: true))
        #expect(kept.identifier == "com.example.nobody-declares-this" && !kept.isDeclared && !kept.isDynamic)
        #expect(kept.tags.isEmpty && kept.supertypes.isEmpty)
        #expect(UTType(identifier: "not an identifier", allowUndeclared: true) == nil)
        #expect(UTType(identifier: "public.png", allowUndeclared: false) == .png)

        #expect(UTType.png.isPublic && !UTType.pdf.isPublic)
        #expect(UTType.jpeg.conforms(to: .jpeg) && !UTType.jpeg.isSubtype(of: .jpeg))
        #expect(UTType.jpeg.conforms(to: .image) && UTType.jpeg.conforms(to: .data) && UTType.jpeg.conforms(to: .item))
        #expect(!UTType.jpeg.conforms(to: .text))
        #expect(UTType.image.isSupertype(of: .png))
        #expect(UTType.plainText.localizedDescription == "plain text document")
        #expect(UTType.jpeg.localizedDescription == "JPEG image")
        let markdown = try #require(UTType("net.daringfireball.markdown"))
        #expect(markdown.referenceURL == URL(string: "https://daringfireball.net/projects/markdown/"))
        #expect(UTType.jpeg.version == nil && UTType.jpeg.referenceURL == nil)
        #expect("\(UTType.jpeg)" == "public.jpeg")
        #expect(String(describing: UTType.jpeg) == UTType.jpeg.description)
        #expect(UTType.jpeg.debugDescription.contains("public.jpeg"))
        let byType: [UTType: String] = [.png: "png", .jpeg: "jpeg"]
        #expect(byType[UTType(mimeType: "image/jpeg")!] == "jpeg")
    }

    @Test func tagClasses() throws {
        #expect(UTTagClass.filenameExtension.rawValue == "public.filename-extension")
        #expect(UTTagClass.mimeType.rawValue == "public.mime-type")
        #expect(UTTagClass(rawValue: "public.mime-type") == .mimeType)
        #expect(UTTagClass.mimeType.description == "public.mime-type")
        #expect(!UTTagClass.mimeType.debugDescription.isEmpty)
        let osType = UTTagClass(rawValue: "com.apple.ostype")
        #expect(UTType(tag: "JPEG", tagClass: osType, conformingTo: nil) == .jpeg)
        let encoded = try JSONEncoder().encode([UTTagClass.mimeType])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["public.mime-type"]"#)
        #expect(try JSONDecoder().decode([UTTagClass].self, from: encoded) == [.mimeType])
    }

    @Test func codableAsTheIdentifier() throws {
        struct Document: Codable, Equatable {
            var name: String
            var type: UTType
        }
        let document = Document(name: "photo", type: .jpeg)
        let data = try JSONEncoder().encode(document)
        #expect(String(decoding: data, as: UTF8.self).contains(#""type":"public.jpeg""#))
        #expect(try JSONDecoder().decode(Document.self, from: data) == document)
        let plist = try PropertyListEncoder().encode(["a": UTType.pdf])
        #expect(try PropertyListDecoder().decode([String: UTType].self, from: plist) == ["a": .pdf])
        let undeclared = try JSONDecoder().decode([UTType].self, from: Data(#"["com.example.elsewhere"]"#.utf8))
        #expect(undeclared.first?.identifier == "com.example.elsewhere")
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([UTType].self, from: Data(#"["not a type"]"#.utf8))
        }
    }

    @Test func exportedAndImportedTypes() {
        // Declared types are found whichever way they are asked for.
        #expect(UTType(exportedAs: "public.jpeg") == .jpeg)
        #expect(UTType(importedAs: "com.adobe.pdf", conformingTo: .data) == .pdf)
        // An undeclared one keeps its identifier and the given parent.
        let own = UTType(exportedAs: "com.example.uti-tests.never-declared", conformingTo: .json)
        #expect(own.identifier == "com.example.uti-tests.never-declared")
        #expect(own.conforms(to: .json) && own.conforms(to: .text))
        let other = UTType(importedAs: "com.example.uti-tests.also-never-declared")
        #expect(other.conforms(to: .data))
    }

    @Test func urlHelpers() {
        let folder = URL(fileURLWithPath: "/tmp/downloads", isDirectory: true)
        #expect(folder.appendingPathComponent("readme", conformingTo: .plainText).lastPathComponent == "readme.txt")
        #expect(folder.appendingPathComponent("puppy.jpg", conformingTo: .image).lastPathComponent == "puppy.jpg")
        #expect(
            folder.appendingPathComponent("puppy.jpg", conformingTo: .plainText).lastPathComponent == "puppy.jpg.txt")
        #expect(folder.appendingPathComponent("Photos", conformingTo: .folder).hasDirectoryPath)
        #expect(folder.appendingPathComponent("", conformingTo: .plainText) == folder)
        var url = folder
        url.appendPathComponent("report", conformingTo: .pdf)
        #expect(url.path == "/tmp/downloads/report.pdf")
        let file = URL(fileURLWithPath: "/tmp/downloads/notes")
        #expect(file.appendingPathExtension(for: .html).lastPathComponent == "notes.html")
        #expect(URL(fileURLWithPath: "/tmp/a.htm").appendingPathExtension(for: .html).lastPathComponent == "a.htm")
        var other = file
        other.appendPathExtension(for: .json)
        #expect(other.lastPathComponent == "notes.json")
    }
}

@Suite struct MIMETypeSyntaxTests {
    @Test func onlyWellFormedMIMETypesGiveATypeThroughEveryInitializer() {
        for text in ["x/@", "text/html(", "</>", "x/\n", "x/é"] {
            #expect(UTType(mimeType: text) == nil)
            #expect(UTType(tag: text, tagClass: .mimeType, conformingTo: nil) == nil)
            #expect(UTType.types(tag: text, tagClass: .mimeType, conformingTo: nil).isEmpty)
        }
        #expect(UTType(mimeType: "text/html; charset=utf-8") == .html)
    }
}
