import UniformTypes

// The types Apple's framework names, macOS 11 to 15.2, in the order of its
// header. Each looks its identifier up in the process registry, so a
// declaration a program gives (its Info.plist, UTI_DECLARATIONS) for the same
// identifier is the one answered.
extension UTType {
    /// The declared type with `identifier`; a type keeping the identifier
    /// when no source declares it (never the case for the bundled ones).
    static func systemDeclared(_ identifier: String) -> UTType {
        UTType(ProcessTypeDeclarations.registry.undeclaredType(identifier))
    }

    /// Item: `public.item`.
    public static var item: UTType { systemDeclared("public.item") }

    /// Content: `public.content`.
    public static var content: UTType { systemDeclared("public.content") }

    /// Content: `public.composite-content`.
    public static var compositeContent: UTType { systemDeclared("public.composite-content") }

    /// Disk image: `public.disk-image`.
    public static var diskImage: UTType { systemDeclared("public.disk-image") }

    /// Data: `public.data`.
    public static var data: UTType { systemDeclared("public.data") }

    /// Directory: `public.directory`.
    public static var directory: UTType { systemDeclared("public.directory") }

    /// Resolvable: `com.apple.resolvable`.
    public static var resolvable: UTType { systemDeclared("com.apple.resolvable") }

    /// Symbolic link: `public.symlink`.
    public static var symbolicLink: UTType { systemDeclared("public.symlink") }

    /// executable: `public.executable`.
    public static var executable: UTType { systemDeclared("public.executable") }

    /// Mount point: `com.apple.mount-point`.
    public static var mountPoint: UTType { systemDeclared("com.apple.mount-point") }

    /// Alias: `com.apple.alias-file`.
    public static var aliasFile: UTType { systemDeclared("com.apple.alias-file") }

    /// Bookmark: `com.apple.bookmark`.
    public static var urlBookmarkData: UTType { systemDeclared("com.apple.bookmark") }

    /// URL: `public.url`.
    public static var url: UTType { systemDeclared("public.url") }

    /// File URL: `public.file-url`.
    public static var fileURL: UTType { systemDeclared("public.file-url") }

    /// Text: `public.text`.
    public static var text: UTType { systemDeclared("public.text") }

    /// Plain text document: `public.plain-text`.
    public static var plainText: UTType { systemDeclared("public.plain-text") }

    /// UTF-8 plain text: `public.utf8-plain-text`.
    public static var utf8PlainText: UTType { systemDeclared("public.utf8-plain-text") }

    /// UTF-16 plain text (external byte order): `public.utf16-external-plain-text`.
    public static var utf16ExternalPlainText: UTType { systemDeclared("public.utf16-external-plain-text") }

    /// UTF-16 plain text: `public.utf16-plain-text`.
    public static var utf16PlainText: UTType { systemDeclared("public.utf16-plain-text") }

    /// Delimited text values: `public.delimited-values-text`.
    public static var delimitedText: UTType { systemDeclared("public.delimited-values-text") }

    /// Comma-separated values: `public.comma-separated-values-text`.
    public static var commaSeparatedText: UTType { systemDeclared("public.comma-separated-values-text") }

    /// Tab-separated values: `public.tab-separated-values-text`.
    public static var tabSeparatedText: UTType { systemDeclared("public.tab-separated-values-text") }

    /// UTF-8 tab-separated values: `public.utf8-tab-separated-values-text`.
    public static var utf8TabSeparatedText: UTType { systemDeclared("public.utf8-tab-separated-values-text") }

    /// Rich text (RTF): `public.rtf`.
    public static var rtf: UTType { systemDeclared("public.rtf") }

    /// HTML text: `public.html`.
    public static var html: UTType { systemDeclared("public.html") }

    /// XML text: `public.xml`.
    public static var xml: UTType { systemDeclared("public.xml") }

    /// YAML: `public.yaml`.
    public static var yaml: UTType { systemDeclared("public.yaml") }

    /// CSS: `public.css`. Apple's since macOS 15.
    public static var css: UTType { systemDeclared("public.css") }

    /// Source code: `public.source-code`.
    public static var sourceCode: UTType { systemDeclared("public.source-code") }

    /// Assembly source code: `public.assembly-source`.
    public static var assemblyLanguageSource: UTType { systemDeclared("public.assembly-source") }

    /// C source code: `public.c-source`.
    public static var cSource: UTType { systemDeclared("public.c-source") }

    /// Objective-C source code: `public.objective-c-source`.
    public static var objectiveCSource: UTType { systemDeclared("public.objective-c-source") }

    /// Swift Source Code: `public.swift-source`.
    public static var swiftSource: UTType { systemDeclared("public.swift-source") }

    /// C++ source code: `public.c-plus-plus-source`.
    public static var cPlusPlusSource: UTType { systemDeclared("public.c-plus-plus-source") }

    /// Objective-C++ source code: `public.objective-c-plus-plus-source`.
    public static var objectiveCPlusPlusSource: UTType { systemDeclared("public.objective-c-plus-plus-source") }

    /// C header code: `public.c-header`.
    public static var cHeader: UTType { systemDeclared("public.c-header") }

    /// C++ header code: `public.c-plus-plus-header`.
    public static var cPlusPlusHeader: UTType { systemDeclared("public.c-plus-plus-header") }

    /// Script: `public.script`.
    public static var script: UTType { systemDeclared("public.script") }

    /// AppleScript text: `com.apple.applescript.text`.
    public static var appleScript: UTType { systemDeclared("com.apple.applescript.text") }

    /// AppleScript: `com.apple.applescript.script`.
    public static var osaScript: UTType { systemDeclared("com.apple.applescript.script") }

    /// Script bundle: `com.apple.applescript.script-bundle`.
    public static var osaScriptBundle: UTType { systemDeclared("com.apple.applescript.script-bundle") }

    /// JavaScript: `com.netscape.javascript-source`.
    public static var javaScript: UTType { systemDeclared("com.netscape.javascript-source") }

    /// Shell script: `public.shell-script`.
    public static var shellScript: UTType { systemDeclared("public.shell-script") }

    /// Perl script: `public.perl-script`.
    public static var perlScript: UTType { systemDeclared("public.perl-script") }

    /// Python script: `public.python-script`.
    public static var pythonScript: UTType { systemDeclared("public.python-script") }

    /// Ruby script: `public.ruby-script`.
    public static var rubyScript: UTType { systemDeclared("public.ruby-script") }

    /// PHP script: `public.php-script`.
    public static var phpScript: UTType { systemDeclared("public.php-script") }

    /// Makefile: `public.make-source`. Apple's since macOS 12.
    public static var makefile: UTType { systemDeclared("public.make-source") }

    /// JSON: `public.json`.
    public static var json: UTType { systemDeclared("public.json") }

    /// Property list: `com.apple.property-list`.
    public static var propertyList: UTType { systemDeclared("com.apple.property-list") }

    /// XML property list: `com.apple.xml-property-list`.
    public static var xmlPropertyList: UTType { systemDeclared("com.apple.xml-property-list") }

    /// Binary property list: `com.apple.binary-property-list`.
    public static var binaryPropertyList: UTType { systemDeclared("com.apple.binary-property-list") }

    /// PDF document: `com.adobe.pdf`.
    public static var pdf: UTType { systemDeclared("com.adobe.pdf") }

    /// Rich text with attachments (RTFD): `com.apple.rtfd`.
    public static var rtfd: UTType { systemDeclared("com.apple.rtfd") }

    /// Rich text with attachments (RTFD) data: `com.apple.flat-rtfd`.
    public static var flatRTFD: UTType { systemDeclared("com.apple.flat-rtfd") }

    /// Web archive: `com.apple.webarchive`.
    public static var webArchive: UTType { systemDeclared("com.apple.webarchive") }

    /// Image: `public.image`.
    public static var image: UTType { systemDeclared("public.image") }

    /// JPEG image: `public.jpeg`.
    public static var jpeg: UTType { systemDeclared("public.jpeg") }

    /// TIFF image: `public.tiff`.
    public static var tiff: UTType { systemDeclared("public.tiff") }

    /// GIF image: `com.compuserve.gif`.
    public static var gif: UTType { systemDeclared("com.compuserve.gif") }

    /// PNG image: `public.png`.
    public static var png: UTType { systemDeclared("public.png") }

    /// Apple icon image: `com.apple.icns`.
    public static var icns: UTType { systemDeclared("com.apple.icns") }

    /// Windows BMP image: `com.microsoft.bmp`.
    public static var bmp: UTType { systemDeclared("com.microsoft.bmp") }

    /// Windows icon image: `com.microsoft.ico`.
    public static var ico: UTType { systemDeclared("com.microsoft.ico") }

    /// Camera raw image: `public.camera-raw-image`.
    public static var rawImage: UTType { systemDeclared("public.camera-raw-image") }

    /// SVG image: `public.svg-image`.
    public static var svg: UTType { systemDeclared("public.svg-image") }

    /// Live Photo: `com.apple.live-photo`.
    public static var livePhoto: UTType { systemDeclared("com.apple.live-photo") }

    /// HEIF image: `public.heif`.
    public static var heif: UTType { systemDeclared("public.heif") }

    /// HEIF image: `public.heic`.
    public static var heic: UTType { systemDeclared("public.heic") }

    /// HEIF Image Sequence: `public.heics`. Apple's since macOS 15.
    public static var heics: UTType { systemDeclared("public.heics") }

    /// WebP Image: `org.webmproject.webp`.
    public static var webP: UTType { systemDeclared("org.webmproject.webp") }

    /// OpenEXR image: `com.ilm.openexr-image`. Apple's since macOS 15.
    public static var exr: UTType { systemDeclared("com.ilm.openexr-image") }

    /// Adobe DNG raw image: `com.adobe.raw-image`. Apple's since macOS 15.
    public static var dng: UTType { systemDeclared("com.adobe.raw-image") }

    /// JPEG XL image: `public.jpeg-xl`. Apple's since macOS 15.2.
    public static var jpegxl: UTType { systemDeclared("public.jpeg-xl") }

    /// 3D Content: `public.3d-content`.
    public static var threeDContent: UTType { systemDeclared("public.3d-content") }

    /// Universal Scene Description: `com.pixar.universal-scene-description`.
    public static var usd: UTType { systemDeclared("com.pixar.universal-scene-description") }

    /// Universal Scene Description Package: `com.pixar.universal-scene-description-mobile`.
    public static var usdz: UTType { systemDeclared("com.pixar.universal-scene-description-mobile") }

    /// Reality File: `com.apple.reality`.
    public static var realityFile: UTType { systemDeclared("com.apple.reality") }

    /// SceneKit serialized format: `com.apple.scenekit.scene`.
    public static var sceneKitScene: UTType { systemDeclared("com.apple.scenekit.scene") }

    /// AR Reference Object: `com.apple.arobject`.
    public static var arReferenceObject: UTType { systemDeclared("com.apple.arobject") }

    /// Audiovisual content: `public.audiovisual-content`.
    public static var audiovisualContent: UTType { systemDeclared("public.audiovisual-content") }

    /// Movie: `public.movie`.
    public static var movie: UTType { systemDeclared("public.movie") }

    /// Video: `public.video`.
    public static var video: UTType { systemDeclared("public.video") }

    /// Audio: `public.audio`.
    public static var audio: UTType { systemDeclared("public.audio") }

    /// QuickTime movie: `com.apple.quicktime-movie`.
    public static var quickTimeMovie: UTType { systemDeclared("com.apple.quicktime-movie") }

    /// MPEG movie: `public.mpeg`.
    public static var mpeg: UTType { systemDeclared("public.mpeg") }

    /// MPEG-2 video: `public.mpeg-2-video`.
    public static var mpeg2Video: UTType { systemDeclared("public.mpeg-2-video") }

    /// MPEG-2 Transport Stream: `public.mpeg-2-transport-stream`.
    public static var mpeg2TransportStream: UTType { systemDeclared("public.mpeg-2-transport-stream") }

    /// MP3 audio: `public.mp3`.
    public static var mp3: UTType { systemDeclared("public.mp3") }

    /// MPEG-4 movie: `public.mpeg-4`.
    public static var mpeg4Movie: UTType { systemDeclared("public.mpeg-4") }

    /// MPEG-4 audio: `public.mpeg-4-audio`.
    public static var mpeg4Audio: UTType { systemDeclared("public.mpeg-4-audio") }

    /// Protected MPEG-4 audio: `com.apple.protected-mpeg-4-audio`.
    public static var appleProtectedMPEG4Audio: UTType { systemDeclared("com.apple.protected-mpeg-4-audio") }

    /// Protected MPEG-4 movie: `com.apple.protected-mpeg-4-video`.
    public static var appleProtectedMPEG4Video: UTType { systemDeclared("com.apple.protected-mpeg-4-video") }

    /// AVI movie: `public.avi`.
    public static var avi: UTType { systemDeclared("public.avi") }

    /// AIFF audio: `public.aiff-audio`.
    public static var aiff: UTType { systemDeclared("public.aiff-audio") }

    /// Waveform audio: `com.microsoft.waveform-audio`.
    public static var wav: UTType { systemDeclared("com.microsoft.waveform-audio") }

    /// MIDI audio: `public.midi-audio`.
    public static var midi: UTType { systemDeclared("public.midi-audio") }

    /// Playlist: `public.playlist`.
    public static var playlist: UTType { systemDeclared("public.playlist") }

    /// M3U Playlist: `public.m3u-playlist`.
    public static var m3uPlaylist: UTType { systemDeclared("public.m3u-playlist") }

    /// Folder: `public.folder`.
    public static var folder: UTType { systemDeclared("public.folder") }

    /// Volume: `public.volume`.
    public static var volume: UTType { systemDeclared("public.volume") }

    /// Package: `com.apple.package`.
    public static var package: UTType { systemDeclared("com.apple.package") }

    /// Bundle: `com.apple.bundle`.
    public static var bundle: UTType { systemDeclared("com.apple.bundle") }

    /// Plug-in: `com.apple.plugin`.
    public static var pluginBundle: UTType { systemDeclared("com.apple.plugin") }

    /// Spotlight importer: `com.apple.metadata-importer`.
    public static var spotlightImporter: UTType { systemDeclared("com.apple.metadata-importer") }

    /// QuickLook preview generator: `com.apple.quicklook-generator`.
    public static var quickLookGenerator: UTType { systemDeclared("com.apple.quicklook-generator") }

    /// XPC Service: `com.apple.xpc-service`.
    public static var xpcService: UTType { systemDeclared("com.apple.xpc-service") }

    /// Framework: `com.apple.framework`.
    public static var framework: UTType { systemDeclared("com.apple.framework") }

    /// Application: `com.apple.application`.
    public static var application: UTType { systemDeclared("com.apple.application") }

    /// Application bundle: `com.apple.application-bundle`.
    public static var applicationBundle: UTType { systemDeclared("com.apple.application-bundle") }

    /// Application and System Extension: `com.apple.application-and-system-extension`.
    public static var applicationExtension: UTType { systemDeclared("com.apple.application-and-system-extension") }

    /// Unix executable: `public.unix-executable`.
    public static var unixExecutable: UTType { systemDeclared("public.unix-executable") }

    /// Microsoft Windows application: `com.microsoft.windows-executable`.
    public static var exe: UTType { systemDeclared("com.microsoft.windows-executable") }

    /// System Preference pane: `com.apple.systempreference.prefpane`.
    public static var systemPreferencesPane: UTType { systemDeclared("com.apple.systempreference.prefpane") }

    /// File archive: `public.archive`.
    public static var archive: UTType { systemDeclared("public.archive") }

    /// GZip archive: `org.gnu.gnu-zip-archive`.
    public static var gzip: UTType { systemDeclared("org.gnu.gnu-zip-archive") }

    /// Bzip2 archive: `public.bzip2-archive`.
    public static var bz2: UTType { systemDeclared("public.bzip2-archive") }

    /// Zip archive: `public.zip-archive`.
    public static var zip: UTType { systemDeclared("public.zip-archive") }

    /// Apple Archive: `com.apple.archive`.
    public static var appleArchive: UTType { systemDeclared("com.apple.archive") }

    /// Tar archive: `public.tar-archive`. Apple's since macOS 15.
    public static var tarArchive: UTType { systemDeclared("public.tar-archive") }

    /// Spreadsheet: `public.spreadsheet`.
    public static var spreadsheet: UTType { systemDeclared("public.spreadsheet") }

    /// Presentation: `public.presentation`.
    public static var presentation: UTType { systemDeclared("public.presentation") }

    /// Database: `public.database`.
    public static var database: UTType { systemDeclared("public.database") }

    /// Message: `public.message`.
    public static var message: UTType { systemDeclared("public.message") }

    /// Contact information: `public.contact`.
    public static var contact: UTType { systemDeclared("public.contact") }

    /// electronic business card: `public.vcard`.
    public static var vCard: UTType { systemDeclared("public.vcard") }

    /// To-do item: `public.to-do-item`.
    public static var toDoItem: UTType { systemDeclared("public.to-do-item") }

    /// Calendar event: `public.calendar-event`.
    public static var calendarEvent: UTType { systemDeclared("public.calendar-event") }

    /// email message: `public.email-message`.
    public static var emailMessage: UTType { systemDeclared("public.email-message") }

    /// Internet location: `com.apple.internet-location`.
    public static var internetLocation: UTType { systemDeclared("com.apple.internet-location") }

    /// Windows Internet shortcut: `com.microsoft.internet-shortcut`.
    public static var internetShortcut: UTType { systemDeclared("com.microsoft.internet-shortcut") }

    /// Font: `public.font`.
    public static var font: UTType { systemDeclared("public.font") }

    /// Bookmark: `public.bookmark`.
    public static var bookmark: UTType { systemDeclared("public.bookmark") }

    /// Personal information exchange (PKCS#12): `com.rsa.pkcs-12`.
    public static var pkcs12: UTType { systemDeclared("com.rsa.pkcs-12") }

    /// Certificate (X.509): `public.x509-certificate`.
    public static var x509Certificate: UTType { systemDeclared("public.x509-certificate") }

    /// EPUB publication: `org.idpf.epub-container`.
    public static var epub: UTType { systemDeclared("org.idpf.epub-container") }

    /// Log file: `public.log`.
    public static var log: UTType { systemDeclared("public.log") }

    /// Apple Haptics Audio Pattern: `com.apple.haptics.ahap`. Apple's since macOS 14.
    public static var ahap: UTType { systemDeclared("com.apple.haptics.ahap") }

    /// GeoJSON document: `public.geojson`. Apple's since macOS 15.
    public static var geoJSON: UTType { systemDeclared("public.geojson") }

    /// Link preview metadata: `com.apple.linkpresentation.metadata`. Apple's since macOS 15.
    public static var linkPresentationMetadata: UTType { systemDeclared("com.apple.linkpresentation.metadata") }
}
