import Foundation
import TestSupport
import Testing

/// A desktop entry is trusted only by its name, as GIO types a file it has
/// the name of: content that looks like one is plain text, whatever else
/// the name says, and only a `.desktop` name makes it a desktop entry.
@Suite struct DesktopEntryByNameTests {
    @Test func contentThatLooksLikeADesktopEntryIsTextUnderEveryOtherName() throws {
        let environment = ["XDG_DATA_DIRS": "/usr/share"]
        try #require(FileManager.default.fileExists(atPath: "/usr/share/mime/mime.cache"), "no system MIME database")
        // Every extension a type claims (the bundled types' and the system's), each once.
        let claimed = try Run(
            ["tags", "public.item", "--class", "extension", "--descendants"], environment: environment
        ).stdout.split(separator: "\n").map(String.init)
        var seen: Set<String> = []
        let extensions = claimed.filter {
            !$0.isEmpty && !$0.contains("/") && $0.lowercased() != "desktop" && seen.insert($0.lowercased()).inserted
        }
        try #require(extensions.count > 1000)
        let folder = TemporaryFolder("uti-desktop-by-name")
        let content = Data("[Desktop Entry]\nType=Application\nName=x\nExec=true\n".utf8)
        var paths = [folder.path + "/noextension", folder.path + "/x.desktop"]
        for ext in extensions { paths.append(folder.path + "/x." + ext) }
        for path in paths { try content.write(to: URL(fileURLWithPath: path)) }
        let run = try Run(["file", "--mime"] + paths, environment: environment)
        let byName = try Run(["file", "--mime", "--no-sniff"] + paths, environment: environment)
        let answers = run.stdout.split(separator: "\n").map(String.init)
        let names = byName.stdout.split(separator: "\n").map(String.init)
        try #require(answers.count == paths.count && names.count == paths.count, "\(run.stderr)")
        var desktopNames = 0
        for (path, (mime, nameSays)) in zip(paths, zip(answers, names)) {
            // A glob of desktop entries (`*.desktop`, `*.kdelnk`) names one.
            if nameSays == "application/x-desktop" {
                desktopNames += 1
                #expect(mime == "application/x-desktop", "uti file \(path)")
            } else {
                #expect(mime != "application/x-desktop", "uti file \(path)")
            }
        }
        #expect(desktopNames >= 1 && names[1] == "application/x-desktop")
    }
}
