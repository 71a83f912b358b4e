import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `tools/install.sh` against someone who can write its manifest or a folder
/// of the prefix: uninstall removes only the files install writes under the
/// prefix it is given, reached through no symbolic link, and install writes
/// through no link planted where it stages its files.
@Suite struct InstallHardeningTests {
    /// Where install puts each file under a prefix other than `~/.local`.
    static let places = [
        "bin/uti", "share/man/man1/uti.1", "share/bash-completion/completions/uti", "share/zsh/site-functions/_uti",
        "share/fish/vendor_completions.d/uti.fish", "lib/systemd/user/uti-inbox.service",
        "lib/systemd/user/uti-inbox-once.service", "lib/systemd/user/uti-inbox.path",
    ]

    func install(_ arguments: [String], home: String) throws -> ProgramRun {
        try ProgramRun(
            URL(fileURLWithPath: "/bin/sh"), [InstallTests.repository + "/tools/install.sh"] + arguments,
            environment: ["HOME": home, "PATH": "/usr/bin:/bin"])
    }

    /// Installs the built uti into `folder/prefix` and returns that prefix.
    func installed(in folder: TemporaryFolder) throws -> String {
        let prefix = folder.path("prefix")
        let run = try install(["--prefix", prefix, "--binary", Run.binary.path], home: folder.path)
        try #require(run.status == 0, "\(run.stderr)")
        return prefix
    }

    func uninstall(_ prefix: String, home: String) throws -> ProgramRun {
        try install(["--uninstall", "--prefix", prefix], home: home)
    }

    /// The SHA-256 of the file at `path`, in hexadecimal, as sha256sum prints it.
    func sha256(_ path: String) throws -> String {
        let run = try ProgramRun(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "sha256sum < \"$1\"", "sh", path],
            environment: ["PATH": "/usr/bin:/bin"])
        try #require(run.status == 0, "\(run.stderr)")
        return String(run.stdout.prefix(64))
    }

    /// Adds a line to the manifest for each of `paths`, with its file's SHA-256.
    func forge(_ paths: [String], prefix: String) throws {
        let manifest = prefix + "/share/uti/installed-files"
        var text = try String(contentsOfFile: manifest, encoding: .utf8)
        for path in paths { text += "\(try sha256(path)) \(path)\n" }
        try text.write(toFile: manifest, atomically: false, encoding: .utf8)
    }

    func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    func isLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    /// The permission bits of the file `path` names, or nil when it is not a
    /// regular file (a link is not followed).
    func regularFileMode(_ path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return info.st_mode & 0o7777
    }

    /// A manifest line naming a file outside the prefix, with that file's
    /// SHA-256, is named and kept, and so is one leading out by `..` and one
    /// naming a file of the prefix install does not write; uti's own files go.
    @Test func uninstallKeepsWhatTheManifestNamesOutsideItsFiles() throws {
        let folder = TemporaryFolder("uti-install")
        let prefix = try installed(in: folder)
        try folder.write("outside/victim", "someone else's file\n")
        try folder.write("prefix/bin/other", "another program\n")
        let forged = [folder.path("outside/victim"), prefix + "/bin/../../outside/victim", prefix + "/bin/other"]
        try forge(forged, prefix: prefix)

        let removed = try uninstall(prefix, home: folder.path)
        #expect(removed.status == 1)
        for path in forged {
            #expect(
                removed.stderr.contains("kept \(path): it is not one of the files install writes under \(prefix)"),
                "\(removed.stderr)")
        }
        #expect(
            try String(contentsOfFile: folder.path("outside/victim"), encoding: .utf8) == "someone else's file\n")
        #expect(try String(contentsOfFile: prefix + "/bin/other", encoding: .utf8) == "another program\n")
        for place in Self.places {
            #expect(!exists(prefix + "/" + place), "\(place) was left")
            #expect(removed.stdout.contains("removed \(prefix)/\(place)\n"))
        }
        #expect(!exists(prefix + "/share/uti"))
    }

    /// A file the manifest names, still as installed, is kept when it is
    /// reached through a linked folder or is itself a link: neither the link
    /// nor what it leads to is removed.
    @Test func uninstallGoesThroughNoSymbolicLink() throws {
        let folder = TemporaryFolder("uti-install")
        let prefix = try installed(in: folder)
        try folder.makeFolder("outside")
        try FileManager.default.moveItem(atPath: prefix + "/share/man", toPath: folder.path("outside/man"))
        #expect(symlink(folder.path("outside/man"), prefix + "/share/man") == 0)
        try FileManager.default.moveItem(atPath: prefix + "/bin/uti", toPath: folder.path("outside/uti"))
        #expect(symlink(folder.path("outside/uti"), prefix + "/bin/uti") == 0)

        let removed = try uninstall(prefix, home: folder.path)
        #expect(removed.status == 1)
        #expect(
            removed.stderr.contains(
                "kept \(prefix)/share/man/man1/uti.1: \(prefix)/share/man is a symbolic link\n"), "\(removed.stderr)")
        #expect(removed.stderr.contains("kept \(prefix)/bin/uti: it is a symbolic link\n"), "\(removed.stderr)")
        #expect(regularFileMode(folder.path("outside/man/man1/uti.1")) == 0o644)
        #expect(regularFileMode(folder.path("outside/uti")) == 0o755)
        #expect(isLink(prefix + "/share/man") && isLink(prefix + "/bin/uti"))
        // What no link leads to goes as before.
        for place in Self.places where !place.hasPrefix("bin/") && !place.hasPrefix("share/man/") {
            #expect(!exists(prefix + "/" + place), "\(place) was left")
        }
    }

    /// A manifest that is a link, is not a regular file, or lies in a linked
    /// folder is not read: nothing is removed.
    @Test func uninstallTrustsOnlyARegularManifestReachedThroughNoLink() throws {
        let folder = TemporaryFolder("uti-install")
        let prefix = try installed(in: folder)
        let manifest = prefix + "/share/uti/installed-files"
        try folder.makeFolder("outside")
        try FileManager.default.copyItem(atPath: manifest, toPath: folder.path("outside/installed-files"))

        try FileManager.default.removeItem(atPath: manifest)
        #expect(symlink(folder.path("outside/installed-files"), manifest) == 0)
        let linked = try uninstall(prefix, home: folder.path)
        #expect(
            linked.status == 1
                && linked.stderr.contains("\(manifest) is a symbolic link, so it is not trusted; nothing was removed"),
            "\(linked.stderr)")

        try FileManager.default.removeItem(atPath: manifest)
        try folder.makeFolder("prefix/share/uti/installed-files")
        let odd = try uninstall(prefix, home: folder.path)
        #expect(
            odd.status == 1
                && odd.stderr.contains("\(manifest) is not a regular file, so it is not trusted; nothing was removed"),
            "\(odd.stderr)")

        try FileManager.default.removeItem(atPath: prefix + "/share/uti")
        try folder.makeFolder("outside/uti")
        try FileManager.default.copyItem(
            atPath: folder.path("outside/installed-files"), toPath: folder.path("outside/uti/installed-files"))
        #expect(symlink(folder.path("outside/uti"), prefix + "/share/uti") == 0)
        let throughLink = try uninstall(prefix, home: folder.path)
        #expect(
            throughLink.status == 1
                && throughLink.stderr.contains(
                    "\(prefix)/share/uti is a symbolic link, so it is not trusted; nothing was removed"),
            "\(throughLink.stderr)")

        for place in Self.places { #expect(exists(prefix + "/" + place), "\(place) was removed") }
        #expect(exists(folder.path("outside/uti/installed-files")))
    }

    /// Links planted in every folder under the names install once staged its
    /// files by (`.NAME.install-PID`, for the process IDs handed out next),
    /// under the manifest's old temporary name and where a file goes are
    /// neither written through nor re-moded: what they lead to is unchanged,
    /// and each file installed is a regular file of its own.
    @Test func installWritesThroughNoPlantedLink() throws {
        let folder = TemporaryFolder("uti-install")
        let prefix = folder.path("prefix")
        try folder.write("outside/victim", "someone else's file\n")
        let victim = folder.path("outside/victim")
        #expect(chmod(victim, 0o600) == 0)
        let lastProcess =
            (try? String(contentsOfFile: "/proc/sys/kernel/ns_last_pid", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? Int(getpid())
        for place in Self.places {
            let path = prefix + "/" + place
            let parent = (path as NSString).deletingLastPathComponent
            let name = (path as NSString).lastPathComponent
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            for process in lastProcess + 1...lastProcess + 200 {
                #expect(symlink(victim, "\(parent)/.\(name).install-\(process)") == 0)
            }
        }
        try folder.makeFolder("prefix/share/uti")
        #expect(symlink(victim, prefix + "/share/uti/installed-files.tmp") == 0)
        #expect(symlink(victim, prefix + "/share/man/man1/uti.1") == 0)

        let run = try install(["--prefix", prefix, "--binary", Run.binary.path], home: folder.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "someone else's file\n")
        #expect(regularFileMode(victim) == 0o600)
        for place in Self.places {
            #expect(regularFileMode(prefix + "/" + place) == (place == "bin/uti" ? 0o755 : 0o644), "\(place)")
        }
        #expect(regularFileMode(prefix + "/share/uti/installed-files") == 0o644)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: prefix + "/share/man/man1/uti.1"))
                == Data(contentsOf: URL(fileURLWithPath: InstallTests.repository + "/docs/uti.1")))
        // No staged copy is left behind: the hidden names are the planted links.
        for place in Self.places + ["share/uti/installed-files"] {
            let parent = ((prefix + "/" + place) as NSString).deletingLastPathComponent
            for name in try FileManager.default.contentsOfDirectory(atPath: parent) where name.hasPrefix(".") {
                #expect(isLink(parent + "/" + name), "\(parent)/\(name) is not a planted link")
            }
        }
    }

    /// A linked folder of the running user's own is followed by install;
    /// uninstall follows no link, so it leaves what lies behind one.
    @Test func installFollowsALinkedFolderOfItsOwnUser() throws {
        let folder = TemporaryFolder("uti-install")
        let prefix = folder.path("prefix")
        try folder.makeFolder("outside/share")
        try folder.makeFolder("prefix")
        #expect(symlink(folder.path("outside/share"), prefix + "/share") == 0)
        let run = try install(["--prefix", prefix, "--binary", Run.binary.path], home: folder.path)
        #expect(run.status == 0, "\(run.stderr)")
        for place in Self.places where place.hasPrefix("share/") {
            #expect(regularFileMode(folder.path("outside/" + place)) == 0o644, "\(place)")
        }
        let removed = try uninstall(prefix, home: folder.path)
        #expect(
            removed.status == 1
                && removed.stderr.contains(
                    "\(prefix)/share is a symbolic link, so it is not trusted; nothing was removed"),
            "\(removed.stderr)")
        #expect(exists(prefix + "/bin/uti") && exists(folder.path("outside/share/man/man1/uti.1")))
    }

    /// A linked folder inside the prefix that belongs to another user stops
    /// the install before any file is put in place, and nothing is written
    /// where it leads.
    @Test(.enabled(if: geteuid() == 0, "needs root to give the link to another user"))
    func installRefusesAnotherUsersLinkedFolder() throws {
        let folder = TemporaryFolder("uti-install")
        let prefix = folder.path("prefix")
        try folder.makeFolder("outside/share")
        try folder.makeFolder("prefix")
        #expect(symlink(folder.path("outside/share"), prefix + "/share") == 0)
        #expect(lchown(prefix + "/share", 65534, 65534) == 0)
        let run = try install(["--prefix", prefix, "--binary", Run.binary.path], home: folder.path)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "(\(prefix)/share is a symbolic link of another user's (uid 65534), which is not followed);"
                    + " nothing was installed"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("outside/share")).isEmpty)
        // The folders install made on the way (bin/) are gone again; the link stays.
        #expect(try FileManager.default.contentsOfDirectory(atPath: prefix) == ["share"])
        #expect(isLink(prefix + "/share"))
    }

    /// Run by python3 as another user who can write a folder where install
    /// stages a file (arguments: the victim file, then pairs of a target and
    /// a folder to watch). Each time a name holding ".install-" appears in a
    /// folder, it renames a link to the victim file over that name; when
    /// that fails (the name is a folder), it renames the entry away and puts
    /// a link in its place, to the target: a folder outside, "+" for a new
    /// folder of its own beside it, or "-" for the entry it moved away. It
    /// prints "ready" once it watches, and ends when its standard input
    /// closes, or after 6,000 waits of at most 0.1 s each.
    static let swapper = #"""
        import ctypes, os, select, struct, sys

        victim = sys.argv[1]
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        queue = libc.inotify_init1(0)
        if queue < 0:
            sys.exit("inotify_init1: errno %d" % ctypes.get_errno())
        watched, baits = {}, {}
        for target, folder in zip(sys.argv[2::2], sys.argv[3::2]):
            baits[folder] = []
            for number in range(8):
                bait = os.path.join(folder, ".bait-%d" % number)
                os.symlink(victim, bait)
                baits[folder].append(bait)
            watch = libc.inotify_add_watch(queue, folder.encode(), 0x100)  # IN_CREATE
            if watch < 0:
                sys.exit("inotify_add_watch %s: errno %d" % (folder, ctypes.get_errno()))
            watched[watch] = (folder, target)
        print("ready", flush=True)
        seen, swaps = set(), 0
        for _ in range(6000):
            readable = select.select([queue, sys.stdin], [], [], 0.1)[0]
            if sys.stdin in readable and not sys.stdin.buffer.read1(1):
                break
            if queue not in readable:
                continue
            events, offset = os.read(queue, 65536), 0
            while offset < len(events):
                watch, mask, cookie, size = struct.unpack_from("iIII", events, offset)
                name = events[offset + 16 : offset + 16 + size].rstrip(b"\0").decode()
                offset += 16 + size
                folder, target = watched[watch]
                path = os.path.join(folder, name)
                if ".install-" not in name or path in seen:
                    continue
                seen.add(path)
                swaps += 1
                try:
                    os.rename(baits[folder][-1], path)
                    baits[folder].pop()
                    continue
                except (OSError, IndexError):
                    pass
                try:
                    away = os.path.join(folder, ".away-%d" % swaps)
                    os.rename(path, away)
                    if target == "-":
                        target = away
                    elif target == "+":
                        target = os.path.join(folder, ".mine-%d" % swaps)
                        os.mkdir(target, 0o700)
                    os.symlink(target, path)
                except OSError:
                    pass
        print("swapped %d" % swaps, flush=True)
        """#

    /// Another user who can write `bin/` (group-writable, not sticky) swaps
    /// what install makes there the moment it appears: a link to a victim
    /// file over a staged file, or, over the private folder install stages
    /// in, a link to a folder outside, to a folder of that user's own, or
    /// back to the folder itself. Nothing is written outside the prefix:
    /// the victim file stays empty with mode 0600 and the folder outside
    /// stays empty; each install either puts the binary in place as a file
    /// of its own or fails, saying so, with nothing installed.
    @Test(
        .enabled(
            if: geteuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0 && access("/usr/bin/python3", X_OK) == 0,
            "needs root, setpriv and python3 to run a second user"))
    func installWritesNothingWhereAnotherUserSwapsItsStagingFolder() throws {
        let folder = TemporaryFolder("uti-install")
        #expect(chmod(folder.path, 0o755) == 0)
        try folder.write("outside/victim", "")
        let victim = folder.path("outside/victim")
        #expect(chmod(victim, 0o600) == 0)
        try folder.makeFolder("outside/folder")
        #expect(chmod(folder.path("outside/folder"), 0o700) == 0)
        try folder.write("swapper.py", Self.swapper)
        let targets = [folder.path("outside/folder"), "+", "-"]
        var arguments = [
            "--reuid=4242", "--regid=4242", "--clear-groups", "/usr/bin/python3", "-I", folder.path("swapper.py"),
            victim,
        ]
        for (index, target) in targets.enumerated() {
            let bin = folder.path("prefix-\(index)/bin")
            try folder.makeFolder("prefix-\(index)/bin")
            #expect(chown(bin, 0, 4242) == 0 && chmod(bin, 0o2775) == 0)
            arguments += [target, bin]
        }

        let swapper = Process()
        swapper.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        swapper.arguments = arguments
        swapper.environment = ["PATH": "/usr/bin:/bin"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        swapper.standardInput = input
        swapper.standardOutput = output
        swapper.standardError = errors
        try swapper.run()
        defer {
            // Closing its input ends it; it is killed in case it has not.
            try? input.fileHandleForWriting.close()
            if swapper.isRunning { kill(swapper.processIdentifier, SIGKILL) }
            swapper.waitUntilExit()
        }
        var said = ""
        while !said.contains("ready\n") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            said += String(decoding: data, as: UTF8.self)
        }
        guard said.contains("ready\n") else {
            let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            Issue.record("the swapper did not start: \(complaint)")
            return
        }

        let binary = try Data(contentsOf: Run.binary)
        for index in targets.indices {
            let prefix = folder.path("prefix-\(index)")
            let run = try install(["--prefix", prefix, "--binary", Run.binary.path], home: folder.path)
            if run.status == 0 {
                #expect(regularFileMode(prefix + "/bin/uti") == 0o755, "\(index)")
                #expect(try Data(contentsOf: URL(fileURLWithPath: prefix + "/bin/uti")) == binary, "\(index)")
                for place in Self.places { #expect(regularFileMode(prefix + "/" + place) != nil, "\(index): \(place)") }
            } else {
                #expect(
                    run.status == 1 && run.stderr.hasPrefix("install.sh: ")
                        && run.stderr.hasSuffix("; nothing was installed\n"), "\(index): \(run.stderr)")
                for place in Self.places { #expect(!exists(prefix + "/" + place), "\(index): \(place)") }
                #expect(!exists(prefix + "/share") && !exists(prefix + "/lib"), "\(index)")
            }
            #expect(regularFileMode(victim) == 0o600, "\(index)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: victim)).isEmpty, "\(index)")
            let outside = try FileManager.default.contentsOfDirectory(atPath: folder.path("outside"))
            #expect(outside.sorted() == ["folder", "victim"], "\(index)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("outside/folder")).isEmpty)
        }
    }
}
