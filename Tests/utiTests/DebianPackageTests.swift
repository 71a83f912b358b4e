import Foundation
import TestSupport
import Testing

/// `tools/package-deb.sh` with the static release binary that
/// `UTI_RELEASE_BINARY` names (see `ReleaseBinaryTests`): the package holds
/// exactly what `tools/install.sh` installs in Debian's layout, and the
/// package's own documents; it installs into a dpkg root of its own, runs
/// from there, and purges without a trace; the same inputs build the same
/// bytes; and lintian, when installed, reports no error or warning.
@Suite struct DebianPackageTests {
    static let releaseBinary = ReleaseBinaryTests.releaseBinary
    static func tool(_ name: String) -> String? {
        ["/usr/bin/", "/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
    static let dpkgPath = tool("dpkg")
    static let dpkgDebPath = tool("dpkg-deb")
    static let lintianPath = tool("lintian")
    static let path = "/usr/sbin:/usr/bin:/sbin:/bin"
    static let maintainer = "uti tests <uti-tests@example.org>"

    /// The files the package adds to those install.sh writes.
    static let packageFiles = [
        "/usr/share/doc/uti/copyright 644", "/usr/share/doc/uti/changelog.gz 644",
        "/usr/share/lintian/overrides/uti 644",
    ]

    static func run(_ program: String, _ arguments: [String], env: [String: String] = [:]) throws -> ProgramRun {
        var environment = ["PATH": path, "LANG": "C.UTF-8"]
        for (key, value) in env { environment[key] = value }
        return try ProgramRun(URL(fileURLWithPath: program), arguments, environment: environment)
    }

    /// Builds the package from `binary` into `output`, staging in
    /// `folder/tmp`; returns the run, whose standard output is the package's path.
    static func package(_ binary: String, into output: String, folder: TemporaryFolder) throws -> ProgramRun {
        try folder.makeFolder("tmp")
        return try run(
            "/bin/sh", [InstallTests.repository + "/tools/package-deb.sh", "--binary", binary, "--output", output],
            env: [
                "HOME": folder.path, "TMPDIR": folder.path("tmp"), "DEBFULLNAME": "uti tests",
                "DEBEMAIL": "uti-tests@example.org", "SOURCE_DATE_EPOCH": "1700000000",
            ])
    }

    /// Where install.sh puts each file for a Debian package, and its mode:
    /// its own list (`--list`), the one it installs from.
    static func installDestinations() throws -> [String] {
        let listed = try run(
            "/bin/sh",
            [InstallTests.repository + "/tools/install.sh", "--prefix", "/usr", "--layout", "debian", "--list"])
        try #require(listed.status == 0, "\(listed.stderr)")
        return listed.stdout.split(separator: "\n").map(String.init)
    }

    /// `dpkg` on the dpkg root `root` only: its own database and log, never
    /// the system's; `--path-include` undoes any path-exclude in
    /// /etc/dpkg/dpkg.cfg.d, and `--force-not-root` lets a user run it.
    static func dpkg(_ arguments: [String], root: String, log: String) throws -> ProgramRun {
        try run(
            try #require(Self.dpkgPath),
            ["--root=" + root, "--log=" + log, "--force-not-root", "--path-include=*"] + arguments)
    }

    @Test(
        .enabled(if: releaseBinary != nil, "UTI_RELEASE_BINARY names no release binary"),
        .enabled(if: dpkgPath != nil && dpkgDebPath != nil, "dpkg is missing: this is no Debian system"))
    func thePackageHoldsWhatInstallInstallsAndInstallsAndPurgesCleanly() throws {
        let binary = try #require(Self.releaseBinary)
        let folder = TemporaryFolder("uti-deb")
        let built = try Self.package(binary, into: folder.path("out"), folder: folder)
        #expect(built.status == 0, "\(built.stderr)")
        let version = try Self.run(binary, ["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let architecture = try Self.run(try #require(Self.dpkgPath), ["--print-architecture"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let deb = folder.path("out/uti_\(version)_\(architecture).deb")
        #expect(built.stdout == deb + "\n")
        try #require(FileManager.default.fileExists(atPath: deb))

        // Every file install.sh installs, and the package's own documents;
        // every folder above them; nothing else. All root's, 0644 or 0755.
        let contents = try Self.run(try #require(Self.dpkgDebPath), ["-c", deb])
        #expect(contents.status == 0, "\(contents.stderr)")
        var files: [String] = []
        var folders: Set<String> = []
        for line in contents.stdout.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true).map(String.init)
            try #require(fields.count == 6, "\(line)")
            #expect(fields[1] == "root/root", "\(line)")
            var path = String(fields[5].dropFirst())  // ./usr/bin/uti, ./usr/bin/
            if path.count > 1 && path.hasSuffix("/") { path.removeLast() }
            switch fields[0] {
            case "drwxr-xr-x": folders.insert(path)
            case "-rwxr-xr-x": files.append(path + " 755")
            case "-rw-r--r--": files.append(path + " 644")
            default: Issue.record("\(line): neither a folder (0755) nor a file of mode 0644 or 0755")
            }
        }
        let expected = try Self.installDestinations() + Self.packageFiles
        #expect(expected.contains("/usr/bin/uti 755"))
        #expect(files.sorted() == expected.sorted())
        var above: Set<String> = []
        for file in expected {
            var place = String(file.split(separator: " ")[0])
            repeat {
                place = (place as NSString).deletingLastPathComponent
                above.insert(place)
            } while place != "/"
        }
        #expect(folders == above)

        // The control fields: no dependency, since the binary is static.
        let control = try Self.run(try #require(Self.dpkgDebPath), ["-f", deb])
        var fields: [String: String] = [:]
        for line in control.stdout.split(separator: "\n") where !line.hasPrefix(" ") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        #expect(fields["Package"] == "uti")
        #expect(fields["Version"] == version)
        #expect(fields["Architecture"] == architecture)
        #expect(fields["Maintainer"] == Self.maintainer)
        #expect(fields["Recommends"] == "shared-mime-info")
        #expect(fields["Section"] == "utils" && fields["Priority"] == "optional")
        #expect(fields["Depends"] == nil && fields["Pre-Depends"] == nil)
        #expect(fields["Description"]?.isEmpty == false)
        let size = try #require(fields["Installed-Size"].flatMap { Int($0) })
        let binarySize = try #require(try FileManager.default.attributesOfItem(atPath: binary)[.size] as? Int)
        #expect(size >= binarySize / 1024 && size < binarySize / 1024 + 200, "\(size) KiB")

        // The same inputs build the same bytes.
        let again = try Self.package(binary, into: folder.path("again"), folder: folder)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: deb))
                == Data(contentsOf: URL(fileURLWithPath: folder.path("again/uti_\(version)_\(architecture).deb"))))

        // Nothing of the staging is left.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("tmp")) == [])

        // Installed into a dpkg root of this test's own, with an empty database.
        let root = folder.path("root")
        try folder.makeFolder("root/var/lib/dpkg/info")
        try folder.makeFolder("root/var/lib/dpkg/updates")
        try folder.write("root/var/lib/dpkg/status", "")
        let log = folder.path("dpkg.log")
        let installed = try Self.dpkg(["--install", deb], root: root, log: log)
        #expect(installed.status == 0, "\(installed.stdout)\(installed.stderr)")
        for file in expected {
            let path = String(file.split(separator: " ")[0])
            #expect(FileManager.default.fileExists(atPath: root + path), "\(path) was not installed")
        }
        let verified = try Self.dpkg(["--verify", "uti"], root: root, log: log)
        #expect(verified.status == 0 && verified.stdout.isEmpty, "\(verified.stdout)\(verified.stderr)")
        let answer = try Run(["-b", "jpg"], executable: root + "/usr/bin/uti")
        #expect(answer.status == 0 && answer.stdout == "public.jpeg\n", "\(answer.stderr)")
        let service = try String(contentsOfFile: root + "/usr/lib/systemd/user/uti-inbox.service", encoding: .utf8)
        #expect(service.contains("ExecStart=/usr/bin/uti inbox --watch %h/Documents\n"))

        // Purged, nothing of it is left: no file, no folder, no record.
        let purged = try Self.dpkg(["--purge", "uti"], root: root, log: log)
        #expect(purged.status == 0, "\(purged.stdout)\(purged.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root) == ["var"])
        let records = try FileManager.default.contentsOfDirectory(atPath: root + "/var/lib/dpkg/info")
        #expect(!records.contains { $0.hasPrefix("uti.") || $0.hasPrefix("uti:") }, "\(records)")
        let status = try String(contentsOfFile: root + "/var/lib/dpkg/status", encoding: .utf8)
        #expect(!status.contains("Package: uti\n"), "\(status)")
        let asked = try Self.dpkg(["--status", "uti"], root: root, log: log)
        #expect(asked.status != 0)
    }

    /// A wrong argument or binary builds nothing, and leaves nothing behind.
    @Test(.enabled(if: dpkgPath != nil && dpkgDebPath != nil, "dpkg is missing: this is no Debian system"))
    func aBinaryThatIsNotTheStaticUtiIsRefused() throws {
        let folder = TemporaryFolder("uti-deb")
        let odd = try Self.run(
            "/bin/sh", [InstallTests.repository + "/tools/package-deb.sh", "--outptu", folder.path("out")])
        #expect(odd.status == 2 && odd.stderr.contains("unknown argument \"--outptu\""), "\(odd.stderr)")
        let other = try Self.package("/bin/true", into: folder.path("out"), folder: folder)
        #expect(other.status == 1 && other.stderr.contains("does not run as uti"), "\(other.stderr)")
        // The debug build needs the Swift runtime's shared libraries, which the package does not declare.
        let shared = try Self.package(Run.binary.path, into: folder.path("out"), folder: folder)
        #expect(shared.status == 1 && shared.stderr.contains("loads shared libraries"), "\(shared.stderr)")
        #expect(shared.stdout.isEmpty && shared.stderr.hasSuffix("no package was built\n"))
        #expect(!FileManager.default.fileExists(atPath: folder.path("out")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("tmp")) == [])
    }

    @Test(
        .enabled(if: releaseBinary != nil, "UTI_RELEASE_BINARY names no release binary"),
        .enabled(if: lintianPath != nil, "lintian is not installed"))
    func lintianReportsNoErrorOrWarning() throws {
        let binary = try #require(Self.releaseBinary)
        let folder = TemporaryFolder("uti-deb")
        let built = try Self.package(binary, into: folder.path("out"), folder: folder)
        try #require(built.status == 0, "\(built.stderr)")
        let deb = built.stdout.trimmingCharacters(in: .newlines)
        let checked = try Self.run(
            try #require(Self.lintianPath), ["--fail-on", "error,warning", deb], env: ["HOME": folder.path])
        let tags = checked.stdout.split(separator: "\n").filter { $0.hasPrefix("E: ") || $0.hasPrefix("W: ") }
        #expect(checked.status == 0 && tags.isEmpty, "\(checked.stdout)\(checked.stderr)")
    }
}
