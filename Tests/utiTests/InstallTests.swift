import Foundation
import TestSupport
import Testing

/// `tools/install.sh` into a temporary prefix, with the binary this test
/// run built: every file where its reader looks, units systemd accepts,
/// and an uninstall that removes exactly those files.
@Suite struct InstallTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
        .standardized.path

    func install(_ arguments: [String], home: String) throws -> ProgramRun {
        try ProgramRun(
            URL(fileURLWithPath: "/bin/sh"), [Self.repository + "/tools/install.sh"] + arguments,
            environment: ["HOME": home, "PATH": "/usr/bin:/bin"])
    }

    @Test func installsEveryFileAndUninstallsThemAll() throws {
        let folder = TemporaryFolder("uti-install")
        let prefix = folder.path + "/prefix"
        let run = try install(["--prefix", prefix, "--binary", Run.binary.path], home: folder.path + "/home")
        #expect(run.status == 0, "\(run.stderr)")
        let files = [
            "bin/uti", "share/man/man1/uti.1", "share/bash-completion/completions/uti", "share/zsh/site-functions/_uti",
            "share/fish/vendor_completions.d/uti.fish", "lib/systemd/user/uti-inbox.service",
            "lib/systemd/user/uti-inbox-once.service", "lib/systemd/user/uti-inbox.path",
        ]
        for file in files {
            #expect(FileManager.default.fileExists(atPath: prefix + "/" + file), "\(file) is missing")
        }
        // The installed binary answers; the page is the repository's; completions name the commands.
        let answer = try Run(["-b", "jpg"], executable: prefix + "/bin/uti")
        #expect(answer.stdout == "public.jpeg\n")
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: prefix + "/share/man/man1/uti.1"))
                == Data(contentsOf: URL(fileURLWithPath: Self.repository + "/docs/uti.1")))
        for file in files where file.contains("completions") || file.contains("site-functions") {
            let text = try String(contentsOfFile: prefix + "/" + file, encoding: .utf8)
            #expect(text.contains("set-default") && text.contains("open-in"), "\(file)")
        }
        let service = try String(contentsOfFile: prefix + "/lib/systemd/user/uti-inbox.service", encoding: .utf8)
        #expect(
            service.contains("ExecStart=\(prefix)/bin/uti inbox --watch %h/Documents\n")
                && !service.contains("@BINDIR@"))
        // systemd accepts the units as installed (and finds their manual page).
        let analyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        let verifier = try #require(analyze, "systemd-analyze is needed to check the units (Debian: systemd)")
        let units = files.filter { $0.hasPrefix("lib/systemd") }.map { prefix + "/" + $0 }
        let verified = try ProgramRun(
            URL(fileURLWithPath: verifier), ["verify"] + units,
            environment: ["PATH": "/usr/bin:/bin", "MANPATH": prefix + "/share/man"])
        #expect(verified.status == 0 && verified.stderr.isEmpty, "\(verified.stderr)")

        // A file of someone else's in the same folders stays.
        try folder.write("prefix/bin/other", "x")
        let removed = try install(["--uninstall", "--prefix", prefix], home: folder.path + "/home")
        #expect(removed.status == 0, "\(removed.stderr)")
        for file in files {
            #expect(!FileManager.default.fileExists(atPath: prefix + "/" + file), "\(file) was left")
        }
        #expect(FileManager.default.fileExists(atPath: prefix + "/bin/other"))
    }

    @Test func badArgumentsAndBinariesInstallNothing() throws {
        let folder = TemporaryFolder("uti-install")
        let prefix = folder.path + "/prefix"
        let unknown = try install(["--prefx", prefix], home: folder.path)
        #expect(unknown.status == 2 && unknown.stderr.contains("unknown argument \"--prefx\""))
        try folder.write("not-uti", "#!/bin/sh\nexit 3\n")
        chmod(folder.path + "/not-uti", 0o755)
        let broken = try install(["--prefix", prefix, "--binary", folder.path + "/not-uti"], home: folder.path)
        #expect(broken.status == 1 && broken.stderr.contains("does not run as uti"))
        // A program that runs but is not uti (it would leave empty completions).
        let other = try install(["--prefix", prefix, "--binary", "/bin/true"], home: folder.path)
        #expect(other.status == 1 && other.stderr.contains("does not run as uti"))
        let missing = try install(["--prefix", prefix, "--binary", folder.path + "/missing"], home: folder.path)
        #expect(missing.status == 1 && missing.stderr.contains("is not an executable file"))
        #expect(!FileManager.default.fileExists(atPath: prefix))
        // What a unit's ExecStart cannot carry unquoted is refused before anything is written.
        for odd in ["/sp ace", "/a%h", "/a&b", "/a|b"] {
            let run = try install(["--prefix", folder.path + odd, "--binary", Run.binary.path], home: folder.path)
            #expect(run.status == 2 && run.stderr.contains("cannot carry unquoted"), "\(odd): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder.path + odd))
        }
    }

    /// A folder where a file goes stops the install before any file is put
    /// in place; uninstall removes only what is still as installed.
    @Test func installIsAllOrNothingAndUninstallKeepsChangedFiles() throws {
        let folder = TemporaryFolder("uti-install")
        let prefix = folder.path + "/prefix"
        try folder.makeFolder("prefix/share/man/man1/uti.1")
        let blocked = try install(["--prefix", prefix, "--binary", Run.binary.path], home: folder.path)
        #expect(blocked.status == 1 && blocked.stderr.contains("uti.1 is a folder; nothing was installed"))
        // The folders install made on the way (bin/) are gone again; those that were there stay.
        #expect(try FileManager.default.contentsOfDirectory(atPath: prefix) == ["share"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: prefix + "/share/man/man1") == ["uti.1"])
        try FileManager.default.removeItem(atPath: prefix + "/share/man/man1/uti.1")

        // A trailing slash names the same prefix.
        let installed = try install(["--prefix", prefix + "/", "--binary", Run.binary.path], home: folder.path)
        #expect(installed.status == 0, "\(installed.stderr)")
        try folder.write("prefix/share/man/man1/uti.1", "my own page\n")
        let removed = try install(["--uninstall", "--prefix", prefix], home: folder.path)
        #expect(removed.status == 1 && removed.stderr.contains("kept \(prefix)/share/man/man1/uti.1: it changed"))
        #expect(!FileManager.default.fileExists(atPath: prefix + "/bin/uti"))
        #expect(try String(contentsOfFile: prefix + "/share/man/man1/uti.1", encoding: .utf8) == "my own page\n")
        // Nothing left that is uti's: a second uninstall has nothing to do.
        try FileManager.default.removeItem(atPath: prefix + "/share/man/man1/uti.1")
        let again = try install(["--uninstall", "--prefix", prefix], home: folder.path)
        #expect(again.status == 0 && again.stdout.contains("nothing of uti's is installed"))
    }
}
