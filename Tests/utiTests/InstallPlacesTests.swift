import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Where `tools/install.sh` puts files and what it says about them: the
/// inbox's hint links the units in when systemd reads no user units from
/// their folder; `--list` names exactly the files an install writes;
/// `--layout debian` and `--destdir` write what a Debian package holds.
@Suite struct InstallPlacesTests {
    static let units = ["uti-inbox.service", "uti-inbox-once.service", "uti-inbox.path"]

    func install(_ arguments: [String], home: String, environment: [String: String] = [:]) throws -> ProgramRun {
        var env = ["HOME": home, "PATH": "/usr/bin:/bin"]
        for (key, value) in environment { env[key] = value }
        return try ProgramRun(
            URL(fileURLWithPath: "/bin/sh"), [InstallTests.repository + "/tools/install.sh"] + arguments,
            environment: env)
    }

    /// The hint install prints last when systemd reads the units where they are.
    static let enableHint =
        "the inbox service: systemctl --user daemon-reload && systemctl --user enable --now uti-inbox.service\n"

    /// The hint when it does not: link the units in from `folder`, then enable one.
    static func linkHint(_ folder: String) -> String {
        "the inbox service: systemd reads no user units from \(folder); link them in, then enable one:\n"
            + "  systemctl --user link \(units.map { folder + "/" + $0 }.joined(separator: " "))"
            + " && systemctl --user enable --now uti-inbox.service\n"
            + "  (or copy them into ~/.config/systemd/user; see docs/install.md)\n"
    }

    @Test func unitsOutsideSystemdsSearchPathAreLinkedIn() throws {
        let folder = TemporaryFolder("uti-install")
        let prefix = folder.path("prefix")
        let run = try install(["--prefix", prefix, "--binary", Run.binary.path], home: folder.path("home"))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasSuffix(Self.linkHint(prefix + "/lib/systemd/user")), "\(run.stdout)")
        #expect(!run.stdout.contains("daemon-reload"))
    }

    @Test func unitsSystemdReadsAreEnabledAsThey() throws {
        let folder = TemporaryFolder("uti-install")
        let home = folder.path("home")
        // ~/.local: the units go in ~/.local/share/systemd/user, which systemd reads.
        let local = try install(["--prefix", home + "/.local", "--binary", Run.binary.path], home: home)
        #expect(local.status == 0, "\(local.stderr)")
        #expect(local.stdout.hasSuffix(Self.enableHint), "\(local.stdout)")
        // A prefix whose lib folder is on XDG_DATA_DIRS.
        let listed = try install(
            ["--prefix", folder.path("listed"), "--binary", Run.binary.path], home: home,
            environment: ["XDG_DATA_DIRS": "/usr/share:" + folder.path("listed/lib")])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.hasSuffix(Self.enableHint), "\(listed.stdout)")
        // A folder systemd reads that is a link to the prefix's unit folder.
        try folder.makeFolder("linked/lib/systemd/user")
        try folder.makeFolder("home/.config/systemd")
        #expect(symlink(folder.path("linked/lib/systemd/user"), folder.path("home/.config/systemd/user")) == 0)
        let linked = try install(["--prefix", folder.path("linked"), "--binary", Run.binary.path], home: home)
        #expect(linked.status == 0, "\(linked.stderr)")
        #expect(linked.stdout.hasSuffix(Self.enableHint), "\(linked.stdout)")
        // The same prefix with another XDG_CONFIG_HOME: not read.
        let elsewhere = try install(
            ["--prefix", folder.path("linked"), "--binary", Run.binary.path], home: home,
            environment: ["XDG_CONFIG_HOME": folder.path("config")])
        #expect(
            elsewhere.stdout.hasSuffix(Self.linkHint(folder.path("linked/lib/systemd/user"))), "\(elsewhere.stdout)")
    }

    /// Every regular file under `folder`, relative to it.
    func files(under folder: String) -> [String] {
        var found: [String] = []
        let walker = FileManager.default.enumerator(atPath: folder)
        while let name = walker?.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder), !isFolder.boolValue
            {
                found.append(name)
            }
        }
        return found.sorted()
    }

    @Test func listNamesTheFilesInstallWrites() throws {
        let folder = TemporaryFolder("uti-install")
        let prefix = folder.path("prefix")
        let listed = try install(["--list", "--prefix", prefix], home: folder.path("home"))
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: prefix))
        let run = try install(["--prefix", prefix, "--binary", Run.binary.path], home: folder.path("home"))
        #expect(run.status == 0, "\(run.stderr)")
        let lines = listed.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.map { String($0.dropFirst(prefix.count + 1).split(separator: " ")[0]) }.sorted()
                == files(under: prefix).filter { $0 != "share/uti/installed-files" })
        for line in lines {
            let parts = line.split(separator: " ").map(String.init)
            let mode = try #require(
                try FileManager.default.attributesOfItem(atPath: parts[0])[.posixPermissions] as? Int)
            #expect(String(mode, radix: 8) == parts[1], "\(line)")
        }
    }

    @Test func debianLayoutUnderADestdirNamesThePrefix() throws {
        let folder = TemporaryFolder("uti-install")
        let tree = folder.path("tree")
        let run = try install(
            ["--prefix", "/usr", "--layout", "debian", "--destdir", tree, "--binary", Run.binary.path],
            home: folder.path("home"))
        #expect(run.status == 0, "\(run.stderr)")
        let listed = try install(["--list", "--prefix", "/usr", "--layout", "debian"], home: folder.path("home"))
        let places = listed.stdout.split(separator: "\n").map { String($0.split(separator: " ")[0].dropFirst()) }
        #expect(
            places.contains("usr/share/man/man1/uti.1.gz") && places.contains("usr/share/zsh/vendor-completions/_uti"))
        // Exactly the listed files, and no manifest: the package manager keeps that record.
        #expect(files(under: tree) == places.sorted())
        // The units name the binary where the package puts it, not where it was written.
        let service = try String(contentsOfFile: tree + "/usr/lib/systemd/user/uti-inbox.service", encoding: .utf8)
        #expect(service.contains("ExecStart=/usr/bin/uti inbox --watch %h/Documents\n"))
        // The manual page is docs/uti.1 gzipped; bash's completions have no #! line.
        let page = try ProgramRun(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "gzip -dc < \"$1\"", "sh", tree + "/usr/share/man/man1/uti.1.gz"],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(page.stdout == (try String(contentsOfFile: InstallTests.repository + "/docs/uti.1", encoding: .utf8)))
        let bash = try String(contentsOfFile: tree + "/usr/share/bash-completion/completions/uti", encoding: .utf8)
        #expect(!bash.hasPrefix("#!") && bash.contains("set-default"))
        // No hint about PATH, zsh or systemd: nothing was installed for this system.
        #expect(!run.stdout.contains("note:") && !run.stdout.contains("the inbox service"), "\(run.stdout)")

        let uninstall = try install(["--uninstall", "--destdir", tree, "--prefix", "/usr"], home: folder.path("home"))
        #expect(uninstall.status == 2 && uninstall.stderr.contains("--destdir installs only"))
        let odd = try install(["--list", "--layout", "arch"], home: folder.path("home"))
        #expect(odd.status == 2 && odd.stderr.contains("unknown layout \"arch\""))
    }
}
