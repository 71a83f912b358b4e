import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// How long a test waits for what must happen before it takes the program
/// for hung: far beyond the slowest run seen on a busy machine. It only
/// stops a hung test; nothing is judged by the time taken.
let hangLimit: Double = 300

/// A running `uti watch`: its output read as it comes.
final class WatchSession: @unchecked Sendable {
    let process = Process()
    private final class Output: @unchecked Sendable {
        let lock = NSLock()
        var out = ""
        var err = ""
    }
    private let output = Output()
    /// Left by each reader at the end of its pipe.
    private let readers = DispatchGroup()

    /// Starts `uti watch ARGUMENTS`, as the user `asUser` when given (root
    /// only, through setpriv).
    init(_ arguments: [String], asUser: Int? = nil) throws {
        if let asUser {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments =
                ["--reuid=\(asUser)", "--regid=\(asUser)", "--clear-groups", Run.binary.path, "watch"] + arguments
        } else {
            process.executableURL = Run.binary
            process.arguments = ["watch"] + arguments
        }
        process.environment = Run.environment(["XDG_DATA_DIRS": "/usr/share"])
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        for (pipe, isError) in [(out, false), (err, true)] {
            let handle = pipe.fileHandleForReading
            let output = output
            let readers = readers
            readers.enter()
            Thread.detachNewThread {
                while true {
                    let data = handle.availableData
                    if data.isEmpty { break }
                    let text = String(decoding: data, as: UTF8.self)
                    output.lock.withLock { if isError { output.err += text } else { output.out += text } }
                }
                readers.leave()
            }
        }
    }

    var lines: [String] { output.lock.withLock { output.out }.split(separator: "\n").map(String.init) }
    var errors: String { output.lock.withLock { output.err } }

    /// Waits until `condition` holds of the output lines, or the watch
    /// ended; past `hangLimit` the test is taken as hung and fails, saying
    /// what it waited for.
    @discardableResult
    func wait(
        for what: String = "the lines expected", sourceLocation: SourceLocation = #_sourceLocation,
        until condition: ([String]) -> Bool
    ) -> Bool {
        let end = Date().addingTimeInterval(hangLimit)
        while !condition(lines) && process.isRunning && Date() < end { usleep(20_000) }
        if condition(lines) { return true }
        let state = process.isRunning ? "hung: waited \(Int(hangLimit)) s" : "uti ended"
        Issue.record(
            "\(state) and never saw \(what); lines: \(lines), standard error: \(errors)",
            sourceLocation: sourceLocation)
        return false
    }

    /// Writes the file `path` and waits for its line. Lines come in the
    /// order items settle, and the marker is written after everything the
    /// test did, so once its line is there any line wrongly made of what
    /// came before (a repeat, a change never made) is there too.
    @discardableResult
    func waitForMarker(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        FileManager.default.createFile(atPath: path, contents: Data("marker".utf8))
        return wait(for: "the marker \(path)", sourceLocation: sourceLocation) { $0.contains { $0.contains(path) } }
    }

    /// Waits for "uti: watching" on standard error.
    func waitUntilWatching(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let end = Date().addingTimeInterval(hangLimit)
        while Date() < end && !errors.contains("uti: watching") && process.isRunning { usleep(10_000) }
        #expect(errors.contains("uti: watching"), "\(errors)", sourceLocation: sourceLocation)
    }

    /// Sends `signal` to it.
    func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Stops it with SIGTERM; its exit status, once it has exited and all
    /// it printed is read. A watch that does not stop within `hangLimit`
    /// is killed, and the test fails.
    func stop(sourceLocation: SourceLocation = #_sourceLocation) -> Int32 {
        if process.isRunning { process.terminate() }
        let end = Date().addingTimeInterval(hangLimit)
        while process.isRunning && Date() < end { usleep(10_000) }
        if process.isRunning {
            Issue.record("uti watch did not stop on SIGTERM; killed", sourceLocation: sourceLocation)
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        if readers.wait(timeout: .now() + hangLimit) == .timedOut {
            Issue.record("the output of uti watch never ended", sourceLocation: sourceLocation)
        }
        return process.terminationStatus
    }

    func objects() -> [[String: Any]] {
        lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}

@Suite struct WatchCommandTests {
    let folder = TemporaryFolder("uti-watch")

    @Test func eachKindOfChangeIsPrintedOnceItSettles() throws {
        let root = folder.path
        let watch = try WatchSession(["--settle", "0.3", root])
        try watch.waitUntilWatching()
        try folder.write("notes.txt", "hello\n")
        #expect(watch.wait { $0.count == 1 })
        try "more\n".write(toFile: root + "/notes.txt", atomically: false, encoding: .utf8)
        #expect(watch.wait { $0.count == 2 })
        #expect(rename(root + "/notes.txt", root + "/notes.md") == 0)
        #expect(watch.wait { $0.count == 3 })
        #expect(unlink(root + "/notes.md") == 0)
        #expect(watch.wait { $0.count == 4 })
        #expect(watch.stop() == 0)
        #expect(
            watch.lines == [
                "added \(root)/notes.txt: public.plain-text (text/plain)",
                "changed \(root)/notes.txt: public.plain-text (text/plain)",
                "renamed \(root)/notes.txt -> \(root)/notes.md: net.daringfireball.markdown (text/markdown)",
                "removed \(root)/notes.md",
            ])
        #expect(watch.errors.hasSuffix("uti: stopped by SIGTERM\n"))
    }

    /// A folder made in a recursive watch is watched before it is listed:
    /// files made in it at once are each reported, once.
    @Test func filesMadeAtOnceInANewSubfolderAreEachReportedOnce() throws {
        let watch = try WatchSession(["-r", "--json", "--settle", "0.2", folder.path])
        try watch.waitUntilWatching()
        for level in ["a", "a/b", "a/b/c"] {
            try folder.makeFolder(level)
            for n in 0..<50 { try folder.write("\(level)/f\(n).txt", "x") }
        }
        #expect(watch.wait { $0.count >= 153 })
        watch.waitForMarker(folder.path("marker"))
        #expect(watch.stop() == 0)
        let paths = watch.objects().compactMap { $0["event"] as? String == "added" ? $0["path"] as? String : nil }
            .filter { $0 != folder.path("marker") }
        #expect(paths.count == 153)
        #expect(Set(paths).count == 153)
        #expect(paths.first == folder.path("a"))
    }

    /// While uti is stopped, more events arrive than the kernel queues: the
    /// folder is listed again, the rescan is said, and every file is
    /// reported once.
    @Test func aQueueOverflowIsRescannedAndNothingIsMissedOrRepeated() throws {
        try folder.makeFolder("in")
        let watch = try WatchSession(["-r", "--json", "--settle", "0.2", folder.path])
        try watch.waitUntilWatching()
        let limit =
            Int(
                (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 16384
        let count = limit + 500
        kill(watch.process.processIdentifier, SIGSTOP)
        for n in 0..<count {
            let fd = open(folder.path("in/f\(n)"), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            close(fd)
        }
        kill(watch.process.processIdentifier, SIGCONT)
        #expect(watch.wait { $0.count >= count + 1 })
        watch.waitForMarker(folder.path("in/marker"))
        #expect(watch.stop() == 0)
        let objects = watch.objects().filter { $0["path"] as? String != folder.path("in/marker") }
        #expect(
            objects.contains {
                $0["event"] as? String == "rescan" && ($0["reason"] as? String ?? "").contains("overflowed")
            })
        let added = objects.filter { $0["event"] as? String == "added" }.compactMap { $0["path"] as? String }
        #expect(added.count == count)
        #expect(Set(added).count == count)
    }

    /// The same lines whether the folder comes back after uti saw it go, or
    /// before (uti stopped meanwhile).
    @Test(arguments: [false, true])
    func aWatchedFolderRemovedAndMadeAgainIsRescanned(backBeforeSeen: Bool) throws {
        let root = folder.path("box")
        try folder.makeFolder("box")
        try folder.write("box/old.txt", "x")
        let watch = try WatchSession(["--settle", "0.2", root])
        try watch.waitUntilWatching()
        if backBeforeSeen { kill(watch.process.processIdentifier, SIGSTOP) }
        try FileManager.default.removeItem(atPath: root)
        if !backBeforeSeen { #expect(watch.wait { $0.contains("removed \(root)/old.txt") }) }
        try folder.makeFolder("box")
        try folder.write("box/new.txt", "y")
        if backBeforeSeen { kill(watch.process.processIdentifier, SIGCONT) }
        #expect(watch.wait { $0.contains { $0.hasPrefix("added \(root)/new.txt") } })
        #expect(watch.stop() == 0)
        #expect(
            watch.lines == [
                "removed \(root)/old.txt", "rescan \(root): the folder was moved or removed",
                "rescan \(root): the folder is there again", "added \(root)/new.txt: public.plain-text (text/plain)",
            ])
    }

    /// Folders are listed without recursion: a tree as deep as paths allow
    /// (2,000 levels) is watched whole.
    @Test func aTreeAsDeepAsPathsAllowIsWatched() throws {
        let watch = try WatchSession(["-r", "--settle", "0.1", folder.path])
        try watch.waitUntilWatching()
        var path = folder.path
        for _ in 0..<2000 {
            path += "/d"
            #expect(mkdir(path, 0o755) == 0)
        }
        try "x".write(toFile: path + "/f.txt", atomically: false, encoding: .utf8)
        #expect(watch.wait { $0.count == 2001 })
        #expect(watch.stop() == 0)
        #expect(watch.lines.last == "added \(path)/f.txt: public.plain-text (text/plain)")
    }

    /// The inbox's rules: a file open for writing is not reported until
    /// its writer closes it.
    @Test func aFileOpenForWritingWaitsForItsWriter() throws {
        let watch = try WatchSession(["--settle", "0", folder.path])
        try watch.waitUntilWatching()
        let fd = open(folder.path("big.bin"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        _ = write(fd, "abc", 3)
        // A file made after it, and closed, is reported: big.bin was looked at first, and was held back.
        watch.waitForMarker(folder.path("marker"))
        #expect(watch.lines.count == 1, "\(watch.lines)")
        close(fd)
        #expect(watch.wait { $0.count == 2 })
        #expect(watch.stop() == 0)
        #expect(
            watch.lines.map { $0.components(separatedBy: ":").first ?? "" } == [
                "added \(folder.path("marker"))", "added \(folder.path("big.bin"))",
            ])
    }

    @Test func typeKeepsOnlyConformingItemsAndInitialListsWhatIsThere() throws {
        try folder.write("before.png", "x")
        try folder.write("before.txt", "x")
        let watch = try WatchSession(["--settle", "0.2", "--type", "public.image", "--initial", "--json", folder.path])
        try watch.waitUntilWatching()
        try folder.write("after.txt", "x")
        try folder.write("after.jpg", "x")
        #expect(watch.wait { $0.count == 2 })
        watch.waitForMarker(folder.path("marker.png"))
        #expect(watch.stop() == 0)
        let objects = watch.objects().filter { $0["path"] as? String != folder.path("marker.png") }
        #expect(objects.map { $0["path"] as? String } == [folder.path("before.png"), folder.path("after.jpg")])
        #expect(objects.map { $0["initial"] as? Bool } == [true, false])
        #expect(objects.map { $0["mimeType"] as? String } == ["image/png", "image/jpeg"])
    }

    @Test func execRunsTheCommandWithoutAShellForEachChange() throws {
        let log = folder.path("log")
        try folder.makeFolder("in")
        let script = "printf '%s|%s|%s|%s\\n' \"$UTI_EVENT\" \"$1\" \"$UTI_TYPE\" \"$UTI_MIME\" >> \"\(log)\""
        let watch = try WatchSession([
            "--settle", "0.2", folder.path("in"), "--exec", "/bin/sh", "-c", script, "sh", "{}",
        ])
        try watch.waitUntilWatching()
        try folder.write("in/a b;$(id).txt", "x")
        #expect(watch.wait { $0.count == 1 })
        // The line is printed before the command runs: the command is done once its line is in the log.
        let end = Date().addingTimeInterval(hangLimit)
        while !((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").hasSuffix("\n") && Date() < end {
            usleep(10_000)
        }
        #expect(watch.stop() == 0)
        let logged = try String(contentsOfFile: log, encoding: .utf8)
        #expect(logged == "added|\(folder.path("in"))/a b;$(id).txt|public.plain-text|text/plain\n")
    }

    @Test func namesThatAreNotUTF8AreEscaped() throws {
        let watch = try WatchSession(["--settle", "0.2", "--json", folder.path])
        try watch.waitUntilWatching()
        let name = Array(folder.path.utf8) + Array("/caf".utf8) + [0xE9, 0x0A] + Array(".txt".utf8) + [0]
        let fd = name.withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644) }
        }
        close(fd)
        #expect(watch.wait { $0.count == 1 })
        #expect(watch.stop() == 0)
        let object = try #require(watch.objects().first)
        #expect(object["path"] as? String == folder.path + "/caf\\xe9\\n.txt")
        #expect((object["pathHex"] as? String)?.hasSuffix("636166e90a2e747874") == true)
    }

    /// The inotify watches the process `pid` holds, as the kernel lists
    /// them: a line `inotify wd:…` per watch in the fdinfo of each inotify
    /// descriptor.
    static func kernelWatches(of pid: Int32) -> Int {
        let fds = "/proc/\(pid)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? []
        var count = 0
        for name in names {
            guard
                (try? FileManager.default.destinationOfSymbolicLink(atPath: fds + "/" + name)) == "anon_inode:inotify",
                let info = try? String(contentsOfFile: "/proc/\(pid)/fdinfo/\(name)", encoding: .utf8)
            else { continue }
            count += info.split(separator: "\n").filter { $0.hasPrefix("inotify wd:") }.count
        }
        return count
    }

    /// Editors' temporaries and version control's folders are left out by
    /// default: never printed, and .git is not watched.
    @Test func swapFilesAndGitAreLeftOutByDefault() throws {
        try folder.makeFolder(".git/objects")
        try folder.write(".git/HEAD", "ref: refs/heads/main\n")
        let watch = try WatchSession(["-r", "--settle", "0.2", folder.path])
        try watch.waitUntilWatching()
        try folder.write(".notes.txt.swp", "x")
        try folder.write(".git/objects/x", "x")
        try folder.write("notes.txt~", "x")
        try folder.write("notes.txt", "x")
        #expect(watch.wait { !$0.isEmpty })
        // Lines come in the order items settle, and the marker, made once notes.txt was printed, settles after
        // everything made before it: a line printed of the files above would come before the marker's.
        watch.waitForMarker(folder.path("marker"))
        let watches = Self.kernelWatches(of: watch.process.processIdentifier)
        #expect(watch.stop() == 0)
        #expect(
            watch.lines.map { $0.components(separatedBy: ":").first ?? "" } == [
                "added \(folder.path("notes.txt"))", "added \(folder.path("marker"))",
            ])
        #expect(watch.errors.contains("uti: watching 1 folder (0 items)"), "\(watch.errors)")
        #expect(watches == 1)
    }

    @Test func noDefaultIgnorePrintsThemAndWatchesGit() throws {
        try folder.makeFolder(".git/objects")
        let watch = try WatchSession(["-r", "--settle", "0.2", "--no-default-ignore", "--json", folder.path])
        try watch.waitUntilWatching()
        try folder.write(".notes.txt.swp", "x")
        try folder.write(".git/objects/x", "x")
        let expected: Set<String> = [folder.path(".notes.txt.swp"), folder.path(".git/objects/x")]
        #expect(
            watch.wait(for: "both files") { _ in
                Set(watch.objects().compactMap { $0["path"] as? String }).isSuperset(of: expected)
            })
        let watches = Self.kernelWatches(of: watch.process.processIdentifier)
        #expect(watch.stop() == 0)
        #expect(watch.objects().map { $0["event"] as? String } == ["added", "added"])
        // The folder, .git and .git/objects.
        #expect(watches == 3)
    }

    /// `--ignore build/` leaves out folders named build, at any depth, and
    /// what they hold, but not a file of that name; a glob may start with `-`.
    @Test func ignoreLeavesOutAFolderAndWhatItHolds() throws {
        try folder.makeFolder("lib")
        let root = folder.path
        let watch = try WatchSession(["-r", "--settle", "0.2", "--ignore", "build/", "--ignore", "-*", root])
        try watch.waitUntilWatching()
        try folder.makeFolder("build/obj")
        try folder.write("build/obj/a.o", "x")
        try folder.makeFolder("lib/build")
        try folder.write("lib/build/b.o", "x")
        try folder.write("-draft.txt", "x")
        try folder.write("lib/build.txt", "x")
        #expect(watch.wait { !$0.isEmpty })
        watch.waitForMarker(folder.path("marker"))
        let watches = Self.kernelWatches(of: watch.process.processIdentifier)
        #expect(watch.stop() == 0)
        #expect(
            watch.lines.map { $0.components(separatedBy: ":").first ?? "" } == [
                "added \(root)/lib/build.txt", "added \(root)/marker",
            ])
        // The folder and lib.
        #expect(watches == 2)
    }

    @Test(arguments: [
        (["--ignore", "a[b", "/tmp"], "--ignore 'a[b': at character 2: \"[\" opens a class"),
        (["--ignore", "src/**x", "/tmp"], "--ignore 'src/**x': at character 5: \"**\" must be a whole component"),
        (["/tmp", "--ignore", ""], "--ignore '': at character 1: the pattern is empty"),
        (["--ignore", "!*.o", "/tmp"], "--ignore '!*.o': at character 1: a leading \"!\" does not negate"),
    ])
    func aBadIgnorePatternExitsWithStatus2(arguments: [String], message: String) throws {
        let run = try Run(["watch"] + arguments)
        #expect(run.status == 2)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test(arguments: [
        (["/nonexistent-uti-watch"], "/nonexistent-uti-watch: No such file or directory"),
        (["--settle", "-1", "/tmp"], "--settle -1.0: give seconds from 0 to 86400"),
        (["--type", "com.example.nosuch", "/tmp"], "no type is declared with this identifier"),
        (["/tmp", "/tmp/"], "is already watched"),
    ])
    func badArgumentsExitWithStatus2(arguments: [String], message: String) throws {
        let run = try Run(["watch"] + arguments)
        #expect(run.status == 2)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    @Test func aFileOrANestedFolderInARecursiveWatchIsRefused() throws {
        try folder.write("file", "x")
        try folder.makeFolder("inner")
        let notFolder = try Run(["watch", folder.path("file")])
        #expect(notFolder.status == 2)
        #expect(notFolder.stderr.contains("is not a folder"))
        let nested = try Run(["watch", "-r", folder.path, folder.path("inner")])
        #expect(nested.status == 2)
        #expect(nested.stderr.contains("is inside \(folder.path)"), "\(nested.stderr)")
        // Without -r, a subfolder is one item of the other folder: both may be watched.
        let flat = try WatchSession([folder.path, folder.path("inner")])
        try flat.waitUntilWatching()
        #expect(flat.stop() == 0)
    }

    /// A folder's own mode or times changing is not an item of it.
    @Test func aFolderChangingModeOrTimesPrintsNothing() throws {
        try folder.makeFolder("old")
        let watch = try WatchSession(["-r", "--settle", "0.2", folder.path])
        try watch.waitUntilWatching()
        #expect(chmod(folder.path("old"), 0o700) == 0)
        #expect(utimes(folder.path("old"), nil) == 0)
        #expect(utimes(folder.path, nil) == 0)
        try folder.write("old/f.txt", "x")
        #expect(watch.wait { !$0.isEmpty })
        watch.waitForMarker(folder.path("marker.txt"))
        #expect(watch.stop() == 0)
        #expect(
            watch.lines == [
                "added \(folder.path)/old/f.txt: public.plain-text (text/plain)",
                "added \(folder.path)/marker.txt: public.plain-text (text/plain)",
            ])
    }

    /// A symbolic link put in a watched folder's place is not followed: the
    /// folder is gone until a folder is there again.
    @Test func aLinkInTheWatchedFoldersPlaceIsNotFollowed() throws {
        try folder.makeFolder("w")
        try folder.makeFolder("elsewhere")
        try folder.write("elsewhere/secret.txt", "x")
        let root = folder.path("w")
        let watch = try WatchSession(["-r", "--settle", "0.2", root])
        try watch.waitUntilWatching()
        #expect(rmdir(root) == 0)
        #expect(symlink(folder.path("elsewhere"), root) == 0)
        #expect(watch.wait { $0.count >= 1 })
        usleep(300_000)
        #expect(unlink(root) == 0)
        try folder.makeFolder("w")
        try folder.write("w/ok.txt", "x")
        #expect(watch.wait { $0.contains { $0.hasPrefix("added \(root)/ok.txt") } })
        #expect(watch.stop() == 0)
        #expect(!watch.lines.contains { $0.contains("secret") })
    }

    /// Another user's folder it may not read is said on standard error, and
    /// the watch goes on.
    @Test func aSubfolderThatCannotBeReadIsSaidAndTheWatchGoesOn() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return }
        #expect(chmod(folder.path, 0o1777) == 0)
        let watch = try WatchSession(
            ["-r", "--settle", "0.2", "--no-writer-check", folder.path],
            asUser: 65534)
        try watch.waitUntilWatching()
        #expect(mkdir(folder.path("private"), 0o700) == 0)
        try folder.write("after.txt", "x")
        #expect(watch.wait { $0.contains { $0.hasPrefix("added \(folder.path)/after.txt") } })
        #expect(watch.stop() == 0)
        #expect(watch.errors.contains("\(folder.path)/private: cannot watch: Permission denied"), "\(watch.errors)")
        #expect(watch.lines.contains("added \(folder.path)/private: public.folder (inode/directory)"))
    }

    /// Seen through --type, a rename into the type is an arrival and one
    /// out of it a departure.
    @Test func renamesAcrossTheTypeFilterAreArrivalsAndDepartures() throws {
        try folder.write("c.txt", "x")
        try folder.write("d.png", "x")
        let watch = try WatchSession(["--settle", "0.2", "--type", "public.image", folder.path])
        try watch.waitUntilWatching()
        #expect(rename(folder.path("c.txt"), folder.path("c.jpg")) == 0)
        #expect(rename(folder.path("d.png"), folder.path("d.txt")) == 0)
        #expect(watch.wait { $0.count == 2 })
        watch.waitForMarker(folder.path("marker.png"))
        #expect(watch.stop() == 0)
        #expect(
            watch.lines == [
                "added \(folder.path)/c.jpg: public.jpeg (image/jpeg)", "removed \(folder.path)/d.png",
                "added \(folder.path)/marker.png: public.png (image/png)",
            ])
    }

    /// SIGTERM while a command runs reaches the command, and the watch
    /// stops. The command sets its trap, says so, then sleeps a second at
    /// a time (a shell runs a trap between commands, whenever the signal
    /// came; the `wait` builtin may miss one that came just before it), for
    /// at most 300 s: without the signal it writes no log.
    @Test func aStopWhileACommandRunsReachesTheCommand() throws {
        let log = folder.path("log"), ready = folder.path("ready")
        try folder.makeFolder("in")
        let script =
            "trap 'echo TERM > \"\(log)\"; exit 3' TERM; echo ready > \"\(ready)\"; "
            + "i=0; while [ $i -lt 300 ]; do sleep 1; i=$((i + 1)); done"
        let watch = try WatchSession(["--settle", "0.1", folder.path("in"), "--exec", "/bin/sh", "-c", script])
        try watch.waitUntilWatching()
        try folder.write("in/a", "x")
        #expect(watch.wait { $0.count == 1 })
        // Stopped once the command has set its trap.
        #expect(waitForFile(ready), "the command never started")
        #expect(watch.stop() == 0)
        #expect((try? String(contentsOfFile: log, encoding: .utf8)) == "TERM\n")
    }

    /// Whether the file at `path` appeared within the hang limit.
    private func waitForFile(_ path: String) -> Bool {
        let end = Date().addingTimeInterval(hangLimit)
        while !FileManager.default.fileExists(atPath: path) && Date() < end { usleep(10_000) }
        return FileManager.default.fileExists(atPath: path)
    }

    /// What the command started stops with it: the command leads a process
    /// group of its own, and the stop is sent to the group (as watchexec does).
    @Test func aStopReachesWhatTheCommandStarted() throws {
        let pidFile = folder.path("sleeper"), ready = folder.path("ready")
        try folder.makeFolder("in")
        let script =
            "sleep 300 </dev/null >/dev/null 2>&1 & echo $! > \"\(pidFile)\"; trap 'exit 3' TERM; echo ready > \"\(ready)\"; "
            + "i=0; while [ $i -lt 300 ]; do sleep 1; i=$((i + 1)); done"
        let watch = try WatchSession(["--settle", "0.1", folder.path("in"), "--exec", "/bin/sh", "-c", script])
        try watch.waitUntilWatching()
        try folder.write("in/a", "x")
        #expect(waitForFile(ready), "the command never started")
        let text = try String(contentsOfFile: pidFile, encoding: .utf8)
        let sleeper = try #require(pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        defer { kill(sleeper, SIGKILL) }
        #expect(getpgid(sleeper) != getpgid(0), "the command's group is not the test's")
        #expect(watch.stop() == 0)
        // Gone, or a zombie nobody has reaped yet: either way it is not running.
        func running() -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(sleeper)/stat", encoding: .utf8) else { return false }
            return !(stat.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).hasPrefix("Z") ?? false)
        }
        let end = Date().addingTimeInterval(hangLimit)
        while running() && Date() < end { usleep(10_000) }
        #expect(!running(), "the command's sleep outlived the watch")
    }

    /// A command that ignores the stop: a second signal ends it (and what it
    /// started) with SIGKILL, and the watch stops as for one signal. SIGINT
    /// and SIGTERM, two signals that cannot merge into one pending signal.
    @Test func aSecondStopEndsACommandThatIgnoresTheFirst() throws {
        let ready = folder.path("ready")
        try folder.makeFolder("in")
        let script =
            "trap '' TERM INT; echo ready > \"\(ready)\"; i=0; while [ $i -lt 300 ]; do sleep 1; i=$((i + 1)); done"
        let watch = try WatchSession(["--settle", "0.1", folder.path("in"), "--exec", "/bin/sh", "-c", script])
        try watch.waitUntilWatching()
        try folder.write("in/a", "x")
        #expect(waitForFile(ready), "the command never started")
        watch.send(SIGTERM)
        watch.send(SIGINT)
        #expect(watch.stop() == 0)
    }

    @Test(arguments: [["--exec"], ["--exec", ""], ["--exec", " "], ["--exec", "no-such-program-uti"]])
    func execWithoutACommandIsRefused(exec: [String]) throws {
        let run = try Run(["watch", "/tmp"] + exec)
        #expect(run.status == 2)
        #expect(run.stderr.contains("--exec"))
    }
}
