import Foundation
import Glibc
import Synchronization
import SystemBase
import TestSupport
import Testing

/// A temporary Documents folder with an Inbox, for runs of `uti inbox`.
final class InboxTree {
    let folder: TemporaryFolder
    var root: String { folder.path }
    var documents: String { root + "/Documents" }
    var inbox: String { documents + "/Inbox" }

    init(base: String = NSTemporaryDirectory()) throws {
        folder = TemporaryFolder("uti-inbox-cli", base: base)
        try folder.makeFolder("Documents/Inbox")
    }

    /// Writes `contents` to `folder/name` through a descriptor no child
    /// process inherits: a program another test starts meanwhile would
    /// otherwise hold the file open for writing, and the inbox would wait for it.
    func write(_ folder: String, _ name: String, _ contents: String) {
        let fd = open(folder + "/" + name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        precondition(fd >= 0, "cannot create \(folder)/\(name): \(errno)")
        let bytes = Array(contents.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// Every regular file under `folder`, by path relative to the tree's root, with its contents.
    func files(under folder: String? = nil) -> [String: String] {
        let base = folder ?? root
        var result: [String: String] = [:]
        guard let walker = FileManager.default.enumerator(atPath: base) else { return result }
        for case let relative as String in walker {
            let path = base + "/" + relative
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            result[String(path.dropFirst(root.count + 1))] =
                (try? String(contentsOfFile: path, encoding: .utf8)) ?? "<unreadable>"
        }
        return result
    }
}

/// Starts `path` with `arguments` and the test environment, no signal
/// blocked or ignored, output thrown away; its process id. Started without
/// Foundation's `Process`, whose child monitor may wait (blocking) on any
/// child it started, so children that run until killed stay out of its sight.
func startWithDefaultSignals(_ path: String, _ arguments: [String]) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let env = Run.environment()
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid = pid_t()
    let error = withDefaultSignalAttributes { posix_spawn(&pid, path, &actions, $0, argv, envp) }
    guard error == 0 else { throw POSIXError(POSIXErrorCode(rawValue: error) ?? .EIO) }
    return pid
}

/// The wait status of child `pid`, once it has ended.
func waitStatus(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status
}

/// Runs `path` with `arguments` as `startWithDefaultSignals` starts it; its
/// wait status.
func spawnWithDefaultSignals(_ path: String, _ arguments: [String]) throws -> Int32 {
    waitStatus(try startWithDefaultSignals(path, arguments))
}

/// Starts `uti` with its output thrown away, for runs that are killed or raced.
func startUTI(_ arguments: [String]) throws -> Process {
    let process = Process()
    process.executableURL = Run.binary
    process.arguments = arguments
    process.environment = Run.environment()
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
}

/// One test at a time: the kill and race tests time their runs, and the lease
/// test keeps both cores busy with writers.
@Suite(.serialized) struct InboxCommandTests {
    @Test func printsOneLinePerItemWithItsTypeAndASummary() throws {
        let tree = try InboxTree()
        tree.write(tree.documents, "report.pdf", "old")
        tree.write(tree.documents, "archive.tar.gz", "old")
        tree.write(tree.inbox, "report.pdf", "%PDF-1.4\u{0}\u{1}")
        tree.write(tree.inbox, "archive.tar.gz", "\u{1F}\u{8B}\u{0}")
        mkfifo(tree.inbox + "/pipe", 0o644)
        // With the system's shared-mime-info, which knows tar.gz as one extension.
        let run = try Run(["inbox", tree.documents, "--settle", "0"], environment: ["XDG_DATA_DIRS": "/usr/share"])
        #expect(run.status == 1)
        #expect(
            run.lines == [
                "Inbox/archive.tar.gz -> archive-1.tar.gz  org.gnu.gnu-zip-tar-archive",
                "Inbox/pipe: left in place: a FIFO is never moved",
                "Inbox/report.pdf -> report-1.pdf  com.adobe.pdf",
                "moved 2, 1 left in place; the Inbox was kept: 1 item is left in it",
            ])
        unlink(tree.inbox + "/pipe")
        let again = try Run("inbox", tree.documents, "--settle", "0")
        #expect(again.status == 0)
        #expect(again.lines == ["moved 0; the Inbox was removed"])
        let none = try Run("inbox", tree.documents)
        #expect(none.status == 0)
        #expect(none.lines == ["Nothing to do: there is no \(tree.inbox)."])
    }

    @Test func reportsAsJSON() throws {
        let tree = try InboxTree()
        tree.write(tree.inbox, "notes", "hello")
        tree.write(tree.documents, "notes", "old")
        let run = try Run(
            ["inbox", tree.documents, "--settle", "0", "--json"], environment: ["XDG_DATA_DIRS": "/usr/share"])
        #expect(run.status == 0)
        let json = try #require(try run.json() as? [String: Any])
        let items = try #require(json["items"] as? [[String: Any]])
        #expect(items.count == 1)
        #expect(items[0]["source"] as? String == "Inbox/notes")
        #expect(items[0]["destination"] as? String == "notes-1")
        #expect(items[0]["status"] as? String == "moved")
        #expect(items[0]["type"] as? String == "public.plain-text")
        let summary = try #require(json["summary"] as? [String: Any])
        #expect(summary["moved"] as? Int == 1)
        #expect(summary["inbox"] as? String == "removed")
    }

    /// Editors', downloads' and version control's own files stay in the
    /// Inbox, said with the glob they match (`ignoredBy` in JSON);
    /// `--ignore` adds globs and `--no-default-ignore` moves them.
    @Test func temporariesStayInTheInboxUnlessTheDefaultsAreTurnedOff() throws {
        let tree = try InboxTree()
        tree.write(tree.inbox, "slides.pdf.part", "half")
        tree.write(tree.inbox, "notes.txt", "x")
        tree.write(tree.inbox, "draft.log", "x")
        let dry = try Run(["inbox", tree.documents, "--settle", "0", "--no-system", "--json", "--dry-run"])
        let items = try #require((try dry.json() as? [String: Any])?["items"] as? [[String: Any]])
        #expect(items.map { $0["status"] as? String } == ["would-move", "would-move", "left-in-place"])
        #expect(items.map { $0["ignoredBy"] as? String } == [nil, nil, "*.part"])
        let run = try Run(["inbox", tree.documents, "--settle", "0", "--no-system", "--ignore", "*.log"])
        #expect(run.status == 1)
        #expect(
            run.lines == [
                "Inbox/draft.log: left in place: its name matches *.log, which is never moved",
                "Inbox/notes.txt -> notes.txt  public.plain-text",
                "Inbox/slides.pdf.part: left in place: its name matches *.part, which is never moved",
                "moved 1, 2 left in place; the Inbox was kept: 2 items are left in it",
            ])
        let all = try Run(["inbox", tree.documents, "--settle", "0", "--no-system", "--no-default-ignore"])
        #expect(all.status == 0)
        #expect(
            Set(tree.files(under: tree.documents).keys) == [
                "Documents/draft.log", "Documents/notes.txt", "Documents/slides.pdf.part",
            ])
        let bad = try Run(["inbox", tree.documents, "--ignore", "[x"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--ignore '[x': at character 1: \"[\" opens a class"), "\(bad.stderr)")
        // The inbox moves entries of Inbox whole: a glob with a folder part could never match one.
        for glob in ["sub/x", "/cache/**", "a/*.log"] {
            let inside = try Run(["inbox", tree.documents, "--ignore", glob])
            #expect(inside.status == 2 && inside.stderr.contains("matches only inside a folder"), "\(inside.stderr)")
        }
        for glob in ["/notes.txt", "drafts/", "**/x.tmp", "*.tmp"] {
            #expect(try Run(["inbox", tree.documents, "--dry-run", "--ignore", glob]).status != 2, "\(glob)")
        }
        #expect(try IgnorePattern("sub/x").canMatchTopLevelItem == false)
        #expect(try IgnorePattern("/x").canMatchTopLevelItem && IgnorePattern("**/x").canMatchTopLevelItem)
    }

    /// A writer that opens the file while `uti` holds its read lease breaks
    /// the lease, and the kernel sends SIGIO: that must not end `uti`.
    @Test func aLeaseBrokenByAWriterNeverKillsTheRun() throws {
        let tree = try InboxTree()
        // Other processes append in loops, opening their files each time;
        // all are killed before any is waited for.
        var appenders: [pid_t] = []
        defer {
            for pid in appenders { kill(pid, SIGKILL) }
            for pid in appenders { _ = waitStatus(pid) }
        }
        for name in ["a.log", "b.log", "c.log"] {
            appenders.append(
                try startWithDefaultSignals(
                    "/bin/sh",
                    ["-c", "while :; do echo line >> \"$1\"; done 2>/dev/null", "sh", tree.inbox + "/" + name]
                ))
        }
        var killed: [Int32] = []
        // Moving (not a dry run) takes a lease each time a new file appears;
        // the Inbox is kept so that the writers can go on. Started as a shell
        // starts it: Foundation's Process hands its children the blocked
        // signals of the thread that spawns them, and a blocked SIGIO kills no one.
        for _ in 0..<150 {
            let status = try spawnWithDefaultSignals(
                Run.binary.path, ["inbox", tree.documents, "--settle", "0", "--keep-inbox", "--no-system"])
            if status & 0x7f != 0 { killed.append(status & 0x7f) }
        }
        #expect(killed == [], "killed by signals \(killed)")
    }

    static var otherFileSystem: Bool {
        var shm = stat(), tmp = stat()
        return stat("/dev/shm", &shm) == 0 && stat(NSTemporaryDirectory(), &tmp) == 0 && shm.st_dev != tmp.st_dev
    }

    /// `uti` as a user who may not remove what the Inbox holds: as itself
    /// when not root, else as nobody (root may remove anything), its trees
    /// handed to nobody.
    static func runWithoutRemovalRights(_ arguments: [String], trees: [InboxTree]) throws -> Run {
        guard geteuid() == 0 else { return try Run(arguments, environment: ["UTI_CACHE_DIR": ""]) }
        for tree in trees {
            _ = try Run(["-R", "65534:65534", tree.root], executable: "/bin/chown")
        }
        return try Run(
            ["--reuid=65534", "--regid=65534", "--clear-groups", Run.binary.path] + arguments,
            environment: ["UTI_CACHE_DIR": ""], executable: "/usr/bin/setpriv")
    }

    /// README (Inbox): an item that cannot be removed from the Inbox is not
    /// copied, so no run makes a second copy of it.
    @Test(.enabled(if: otherFileSystem, "needs /dev/shm on another file system"))
    func anItemThatCannotBeRemovedIsNeverCopied() throws {
        let tree = try InboxTree(), remote = try InboxTree(base: "/dev/shm")
        remote.write(remote.inbox, "a.txt", "a")
        try FileManager.default.createDirectory(atPath: remote.inbox + "/Pack.app", withIntermediateDirectories: false)
        remote.write(remote.inbox + "/Pack.app", "b.txt", "b")
        symlink("/etc/hostname", remote.inbox + "/alink")
        chmod(remote.inbox, 0o555)
        defer { chmod(remote.inbox, 0o755) }
        for round in 0..<3 {
            let run = try Self.runWithoutRemovalRights(
                ["inbox", tree.documents, "--inbox", remote.inbox, "--settle", "0", "--no-system"],
                trees: [tree, remote])
            #expect(run.status == 1, "round \(round): \(run.stdout) \(run.stderr)")
            for name in ["a.txt", "Pack.app", "alink"] {
                #expect(run.stderr.contains("\(name): not moved: cannot be removed from the Inbox"), "\(run.stderr)")
            }
            #expect(run.stderr.contains("so it is not copied"), "\(run.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: tree.documents).filter { $0 != "Inbox" } == [])
        #expect(remote.files(under: remote.inbox).count == 2)
    }

    /// A writer that opens, appends to and closes a file by name, again and
    /// again, while runs move it across file systems: every line written
    /// ends up in Documents exactly once (a writer that opens it after it
    /// was set aside makes a new file, which a later run takes). Before the
    /// set-aside, most trials here lost a line or more.
    ///
    /// The writer goes on until the runs have made `movesPerTrial` moves
    /// across while it wrote, however long that takes on this machine (at
    /// most `maximumRuns` runs, so a run that never moves cannot hang it).
    @Test(.enabled(if: otherFileSystem, "needs /dev/shm on another file system"))
    func appendsDuringCrossDeviceMovesAreNeverLost() throws {
        let movesPerTrial = 25, maximumRuns = 5_000
        var remoteFolders: [String] = []
        for trial in 0..<6 {
            let tree = try InboxTree(), remote = try InboxTree(base: "/dev/shm")
            remoteFolders.append(remote.root)
            let path = remote.inbox + "/log.txt"
            let stop = Mutex(false)
            let written = Mutex(0)
            let finished = DispatchSemaphore(value: 0)
            let writer = Thread {
                var i = 0
                while !stop.withLock({ $0 }) {
                    let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
                    let line = Array("line \(i)\n".utf8)
                    _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                    close(fd)
                    i += 1
                    written.withLock { $0 = i }
                    usleep(500)
                }
                finished.signal()
            }
            writer.start()
            var runs = 0, moved = 0
            while moved < movesPerTrial && runs < maximumRuns {
                let run = try Run(
                    "inbox", tree.documents, "--inbox", remote.inbox, "--settle", "0", "--keep-inbox",
                    "--no-system")
                moved += run.stdout.components(separatedBy: "(copied across file systems)").count - 1
                runs += 1
            }
            stop.withLock { $0 = true }
            finished.wait()
            // The moves really raced the writer.
            #expect(moved >= movesPerTrial, "trial \(trial): only \(moved) moves in \(runs) runs")
            let last = try Run("inbox", tree.documents, "--inbox", remote.inbox, "--settle", "0", "--no-system")
            #expect(last.status == 0, "trial \(trial): \(last.stdout) \(last.stderr)")
            let lines = written.withLock { $0 }
            let found = tree.files(under: tree.documents).values.flatMap { $0.split(separator: "\n").map(String.init) }
            #expect(
                found.count == lines && Set(found).count == lines,
                "trial \(trial) (\(runs) runs, \(moved) moves): \(found.count) lines found of \(lines), \(Set(found).count) distinct"
            )
        }
        // The trees on /dev/shm went with their trials, though uti removed the Inboxes in them.
        for folder in remoteFolders { #expect(!FileManager.default.fileExists(atPath: folder), "\(folder) is left") }
    }

    /// A package moved across file systems by runs killed at random
    /// moments (copying, publishing, removing the source) ends up in
    /// Documents exactly once and whole, with nothing left over.
    @Test func killedCrossDeviceFolderMovesEndWhole() throws {
        var shm = stat(), tmp = stat()
        guard stat("/dev/shm", &shm) == 0, stat(NSTemporaryDirectory(), &tmp) == 0, shm.st_dev != tmp.st_dev else {
            return
        }
        let files = 2_000
        func makePackage(_ remote: InboxTree, _ name: String) throws {
            try FileManager.default.createDirectory(
                atPath: remote.inbox + "/\(name)/Contents/Resources", withIntermediateDirectories: true)
            for i in 0..<files {
                remote.write(remote.inbox + "/\(name)/Contents/Resources", "f\(i).txt", "\(name) \(i)")
            }
        }
        // How long one whole move takes here. Whenever a kill lands (the
        // moments come from a fixed seed), the package ends up whole and once.
        var random = SplitMix64(seed: 0x5EED_F01D)
        let calibration = try InboxTree(), calibrationRemote = try InboxTree(base: "/dev/shm")
        try makePackage(calibrationRemote, "C.app")
        let started = Date()
        _ = try Run("inbox", calibration.documents, "--inbox", calibrationRemote.inbox, "--settle", "0", "--no-system")
        let whole = Date().timeIntervalSince(started)
        for round in 0..<6 {
            let tree = try InboxTree(), remote = try InboxTree(base: "/dev/shm")
            try makePackage(remote, "P.app")
            let process = try startUTI([
                "inbox", tree.documents, "--inbox", remote.inbox, "--settle", "0", "--no-system",
            ])
            if round % 2 == 0 {
                usleep(UInt32(Double.random(in: 0.05...1.1, using: &random) * whole * 1_000_000))
            } else {
                // Killed once the source has begun to go: the copy is published and the removal under way
                // (or, if the run is over first, after it: the check below holds either way).
                let deadline = Date().addingTimeInterval(hangLimit)
                while process.isRunning && Date() < deadline {
                    let sources = ((try? FileManager.default.contentsOfDirectory(atPath: remote.inbox)) ?? [])
                        .map { remote.inbox + "/" + $0 + "/Contents/Resources" }
                    let left =
                        sources.map { (try? FileManager.default.contentsOfDirectory(atPath: $0).count) ?? files }.min()
                        ?? files
                    if left < files - 50 { break }
                    usleep(200)
                }
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let last = try Run("inbox", tree.documents, "--inbox", remote.inbox, "--settle", "0", "--no-system")
            #expect(last.status == 0, "round \(round): \(last.stdout) \(last.stderr)")
            let names = try FileManager.default.contentsOfDirectory(atPath: tree.documents).filter { $0 != "Inbox" }
            #expect(names == ["P.app"], "round \(round): \(names)")
            let copied = try FileManager.default.contentsOfDirectory(
                atPath: tree.documents + "/P.app/Contents/Resources")
            #expect(copied.count == files, "round \(round): \(copied.count) of \(files) files")
            #expect(!FileManager.default.fileExists(atPath: remote.inbox), "round \(round): the Inbox is left")
        }
    }

    @Test func badArgumentsAndUnusableFoldersExitWithStatus2() throws {
        let tree = try InboxTree()
        let missing = try Run("inbox", tree.root + "/nope")
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("\(tree.root)/nope: No such file or directory"))
        #expect(try Run("inbox", tree.documents, "--settle", "-1").status == 2)
        #expect(try Run("inbox", tree.documents, "--inbox", "").status == 2)
        #expect(try Run("inbox", tree.documents, "--watch", "--dry-run").status == 2)
    }

    /// An Inbox named with a trailing "/" must be a folder: a link there is
    /// neither followed nor moved as a document (exit 2, nothing moved).
    /// Without the "/", a link is a document, as any non-folder Inbox is.
    @Test func aTrailingSlashAsksForAFolder() throws {
        let tree = try InboxTree()
        try FileManager.default.removeItem(atPath: tree.inbox)
        try tree.folder.makeFolder("elsewhere")
        tree.write(tree.root + "/elsewhere", "kept.txt", "x")
        #expect(symlink("../elsewhere", tree.inbox) == 0)
        for inbox in ["Inbox/", tree.inbox + "/", tree.inbox + "//"] {
            let run = try Run("inbox", tree.documents, "--settle", "0", "--no-system", "--inbox", inbox)
            #expect(run.status == 2, "\(inbox): \(run.stdout)")
            #expect(run.stderr.contains("is a symbolic link, which is never followed, not a folder"), "\(run.stderr)")
            var info = stat()
            #expect(lstat(tree.inbox, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK)
            #expect(tree.files(under: tree.root + "/elsewhere") == ["elsewhere/kept.txt": "x"])
        }
        let document = try Run("inbox", tree.documents, "--settle", "0", "--no-system", "--inbox", "Inbox")
        #expect(document.status == 0 && document.stdout.contains("the Inbox was not a folder"), "\(document.stdout)")
        #expect(tree.files(under: tree.root + "/elsewhere") == ["elsewhere/kept.txt": "x"])
        // A real folder named with a slash is emptied as usual.
        try tree.folder.makeFolder("Documents/Drop")
        tree.write(tree.documents + "/Drop", "a.txt", "a")
        let folder = try Run("inbox", tree.documents, "--settle", "0", "--no-system", "--inbox", "Drop/")
        #expect(folder.status == 0 && tree.files(under: tree.documents)["Documents/a.txt"] == "a", "\(folder.stderr)")
    }

    @Test func aFullDestinationLosesNothing() throws {
        // The copy across file systems meets a file-size limit (EFBIG), as it would a full disk.
        let tree = try InboxTree()
        let remote = try InboxTree(base: "/dev/shm")
        let big = String(repeating: "0123456789abcdef", count: 65_536)  // 1 MiB
        remote.write(remote.inbox, "big.bin", big)
        remote.write(remote.inbox, "small.txt", "small")
        let run = try Run(
            [
                "sh", "-c", "ulimit -f 256; exec \"$0\" \"$@\"", Run.binary.path,
                "inbox", tree.documents, "--inbox", remote.inbox, "--settle", "0",
            ].dropFirst().map { $0 },
            executable: "/bin/sh")
        #expect(run.status == 1)
        #expect(run.stderr.contains("Inbox/big.bin: not moved") || run.stderr.contains("big.bin: not moved"))
        #expect(run.stderr.contains("File too large"))
        #expect(remote.files(under: remote.inbox).values.contains(big))
        #expect(tree.files(under: tree.documents) == ["Documents/small.txt": "small"])
    }

    @Test func killedAtRandomMomentsNothingIsLostOrDuplicated() throws {
        let tree = try InboxTree()
        var expected: [String: Int] = [:]  // contents -> how many copies must exist
        var serial = 0
        /// Adds items whose names collide with what Documents holds.
        func arrive(_ count: Int) {
            for _ in 0..<count {
                let name = serial % 3 == 0 ? "report.pdf" : "doc\(serial % 50).txt"
                let unique = "inbox \(serial)"
                serial += 1
                if !FileManager.default.fileExists(atPath: tree.inbox + "/" + name) {
                    tree.write(tree.inbox, name, unique)
                } else {
                    tree.write(tree.inbox, "\(serial)-" + name, unique)
                }
                expected[unique] = 1
            }
        }
        for name in ["report.pdf"] + (0..<50).map({ "doc\($0).txt" }) {
            tree.write(tree.documents, name, "documents \(name)")
            expected["documents \(name)"] = 1
        }
        arrive(300)
        // How long a run takes here with nothing to move and with one
        // round's items, so that kills land before, during and after the moves.
        let calibration = try InboxTree()
        func timedRun() throws -> TimeInterval {
            let started = Date()
            _ = try Run("inbox", calibration.documents, "--settle", "0", "--no-system")
            return Date().timeIntervalSince(started)
        }
        let emptyRun = try timedRun()
        // The empty run removed the Inbox.
        try FileManager.default.createDirectory(atPath: calibration.inbox, withIntermediateDirectories: true)
        for i in 0..<20 { calibration.write(calibration.inbox, "f\(i).txt", "x") }
        let fullRun = max(try timedRun(), emptyRun)

        // Half the kills land at random moments of a run; the other half
        // home in on the moves (a kill that came before any move waits
        // longer next time, one that came after the last waits less), so
        // that runs are cut short in the middle however fast they start.
        // The moments come from a fixed seed; the checks hold wherever a kill lands.
        var random = SplitMix64(seed: 0xC0FF_EE00)
        var interrupted = 0
        var aimed = (emptyRun + fullRun) / 2
        var rounds = 0
        // Rounds go on until three kills came during the moves, however this machine's speed varies
        // (at most 200, so that it cannot hang).
        for round in 0..<200 {
            if round >= 40 && interrupted >= 3 { break }
            rounds += 1
            try? FileManager.default.createDirectory(atPath: tree.inbox, withIntermediateDirectories: true)
            arrive(20)
            let before = (try? FileManager.default.contentsOfDirectory(atPath: tree.inbox).count) ?? 0
            let process = try startUTI(["inbox", tree.documents, "--settle", "0", "--no-system"])
            let delay =
                round % 2 == 0
                ? Double.random(in: (emptyRun * 0.7)...(fullRun * 1.2), using: &random)
                : aimed * Double.random(in: 0.9...1.1, using: &random)
            usleep(UInt32(delay * 1_000_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let after = (try? FileManager.default.contentsOfDirectory(atPath: tree.inbox).count) ?? 0
            let killed = process.terminationReason == .uncaughtSignal
            if killed && after > 0 && after < before { interrupted += 1 }
            if round % 2 == 1 { aimed *= !killed || after == 0 ? 0.8 : after >= before ? 1.25 : 1 }
            try check(tree, expected, round: round)
        }
        // Kills must have cut runs short in the middle of their moves, or this proved nothing.
        #expect(interrupted >= 3, "only \(interrupted) of \(rounds) kills came during the moves")
        let last = try Run("inbox", tree.documents, "--settle", "0", "--no-system")
        #expect(last.status == 0, "\(last.stdout.split(separator: "\n").filter { !$0.contains(" -> ") })")
        try check(tree, expected, round: rounds)
        #expect(!FileManager.default.fileExists(atPath: tree.inbox))
        // The files that were there before kept their names and contents.
        #expect(tree.files()["Documents/report.pdf"] == "documents report.pdf")
        #expect(tree.files()["Documents/doc7.txt"] == "documents doc7.txt")
    }

    /// Every file exists exactly once with its bytes, and nothing else exists.
    private func check(_ tree: InboxTree, _ expected: [String: Int], round: Int) throws {
        var seen: [String: Int] = [:]
        for (path, contents) in tree.files() {
            #expect(expected[contents] != nil, "round \(round): unexpected file \(path) holding \(contents.prefix(40))")
            seen[contents, default: 0] += 1
        }
        for (contents, count) in expected where seen[contents] != count {
            Issue.record("round \(round): \(contents) exists \(seen[contents] ?? 0) times")
        }
    }

    @Test func concurrentProcessorsAndAWriterNeverOverwrite() throws {
        let tree = try InboxTree()
        var expected: [String: Int] = [:]
        for i in 0..<400 {
            let name = i == 0 ? "report.pdf" : "report-\(i).pdf"
            if i < 200 {
                tree.write(tree.documents, name, "documents \(name)")
                expected["documents \(name)"] = 1
            }
            tree.write(tree.inbox, name, "inbox \(name)")
            expected["inbox \(name)"] = 1
        }
        // A writer that creates, without replacing, the numbered names the processors want.
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = [
            "-c",
            "cd \"$1\" && set -C && i=1; while [ $i -le 900 ]; do printf 'writer report-%s.pdf' $i > report-$i.pdf 2>/dev/null; i=$((i+1)); done",
            "sh", tree.documents,
        ]
        writer.standardError = FileHandle.nullDevice
        let processors = try (0..<4).map { _ in try startUTI(["inbox", tree.documents, "--settle", "0", "--no-system"])
        }
        try writer.run()
        for process in processors { process.waitUntilExit() }
        writer.waitUntilExit()
        // What the writer made stays as it wrote it; count it as expected.
        for (path, contents) in tree.files() where contents.hasPrefix("writer ") {
            #expect(contents == "writer " + (path as NSString).lastPathComponent, "overwritten: \(path)")
            expected[contents] = 1
        }
        let last = try Run("inbox", tree.documents, "--settle", "0", "--no-system")
        #expect(last.status == 0, "\(last.stdout.split(separator: "\n").filter { !$0.contains(" -> ") })")
        try check(tree, expected, round: 0)
        #expect(!FileManager.default.fileExists(atPath: tree.inbox))
    }
}

@Suite struct InboxWatchTests {
    @Test(arguments: [SIGTERM, SIGINT])
    func movesItemsAsTheyArriveAndStopsCleanlyOnASignal(signal: Int32) throws {
        let tree = try InboxTree()
        try FileManager.default.removeItem(atPath: tree.inbox)
        let process = Process()
        process.executableURL = Run.binary
        process.arguments = ["inbox", tree.documents, "--watch", "--settle", "0.2", "--no-system"]
        process.environment = Run.environment()
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        usleep(300_000)
        // The Inbox appears after the watch began, then a file is written into it.
        try FileManager.default.createDirectory(atPath: tree.inbox, withIntermediateDirectories: false)
        tree.write(tree.inbox, "first.txt", "one")
        #expect(Self.waitUntilExists(tree.documents + "/first.txt"), "first.txt was never moved")
        // A watched Inbox stays, ready for the next delivery.
        #expect(FileManager.default.fileExists(atPath: tree.inbox))
        tree.write(tree.inbox, "second.txt", "two")
        #expect(Self.waitUntilExists(tree.documents + "/second.txt"), "second.txt was never moved")
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(stdout.contains("Inbox/first.txt -> first.txt"))
        #expect(stdout.contains("Inbox/second.txt -> second.txt"))
        #expect(stderr.contains(signal == SIGINT ? "stopped by SIGINT" : "stopped by SIGTERM"))
    }

    /// Waits until `path` exists; false past `hangLimit` (a hung watch).
    static func waitUntilExists(_ path: String) -> Bool {
        let end = Date().addingTimeInterval(hangLimit)
        while !FileManager.default.fileExists(atPath: path) && Date() < end { usleep(20_000) }
        return FileManager.default.fileExists(atPath: path)
    }
}

/// The names `uti inbox` really gives: the counter goes before the longest
/// extension a type claims, else before the last one (README, "Inbox").
@Suite struct InboxNamingThroughTheToolTests {
    /// Each name with the name it gets beside a file of its own name, with
    /// the system's MIME data and without it (where only the bundled types,
    /// Apple's, claim extensions: `tar.gz` is none of theirs).
    @Test(
        arguments: [
            ("my.report.pdf", "my.report-1.pdf", nil), ("v1.2.txt", "v1.2-1.txt", nil),
            ("IMG_2024.01.05.jpg", "IMG_2024.01.05-1.jpg", nil),
            ("archive.tar.gz", "archive-1.tar.gz", "archive.tar-1.gz"),
            ("backup.2024.tar.gz", "backup.2024-1.tar.gz", "backup.2024.tar-1.gz"), ("notes", "notes-1", nil),
            ("a.b.unknownext", "a.b-1.unknownext", nil), ("Photo.JPG", "Photo-1.JPG", nil),
            (".profile", ".profile-1", nil),
            ("x.y.Z", "x.y-1.Z", nil),
        ] as [(String, String, String?)])
    func theCounterGoesBeforeTheRealExtension(name: String, expected: String, withoutSystemData: String?) throws {
        for (environment, expected) in [
            (["XDG_DATA_DIRS": "/usr/share"], expected), ([:], withoutSystemData ?? expected),
        ] {
            let tree = try InboxTree()
            tree.write(tree.documents, name, "taken")
            tree.write(tree.inbox, name, "arrived")
            let run = try Run(["inbox", tree.documents, "--settle", "0"], environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(
                run.lines.first?.hasPrefix("Inbox/\(name) -> \(expected)  ") == true, "\(environment): \(run.stdout)")
            #expect(
                tree.files(under: tree.documents) == ["Documents/" + name: "taken", "Documents/" + expected: "arrived"])
        }
    }
}

/// A journal planted in the Inbox moves nothing outside it (issue: a
/// journal naming `../../../elsewhere/.ssh` made a run move a folder
/// there); through the built tool, with --dry-run first.
@Suite struct PlantedJournalThroughTheToolTests {
    @Test func aPlantedJournalIsADocument() throws {
        let tree = try InboxTree()
        let planted = tree.inbox + "/.uti-inbox-removing-x"
        try tree.folder.makeFolder("Documents/Inbox/.uti-inbox-removing-x")
        tree.write(planted, "file", "hi")
        tree.write(planted, ".uti-inbox-journal", "nonexistent\u{0}../../../elsewhere/.ssh")
        chmod(planted + "/.uti-inbox-journal", 0o600)
        let dry = try Run(["inbox", tree.documents, "--settle", "0", "--dry-run"])
        #expect(
            dry.status == 0 && dry.lines.first == "Inbox/.uti-inbox-removing-x -> .uti-inbox-removing-x  public.folder",
            "\(dry.stdout)\(dry.stderr)")
        let run = try Run(["inbox", tree.documents, "--settle", "0"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            tree.files() == [
                "Documents/.uti-inbox-removing-x/file": "hi",
                "Documents/.uti-inbox-removing-x/.uti-inbox-journal": "nonexistent\u{0}../../../elsewhere/.ssh",
            ])
    }
}

/// `uti inbox --watch --json | consumer`: each item's line reaches the pipe
/// when the item is done, not when uti exits.
@Suite struct LiveOutputTests {
    @Test func eachItemReachesThePipeAsItIsDone() throws {
        let tree = try InboxTree()
        let process = Process()
        process.executableURL = Run.binary
        process.arguments = ["inbox", tree.documents, "--watch", "--json", "--settle", "0"]
        process.environment = Run.environment()
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        usleep(500_000)
        let fd = open(tree.inbox + "/a.txt", O_WRONLY | O_CREAT | O_EXCL, 0o644)
        _ = write(fd, "a", 1)
        close(fd)
        let arrived = DispatchSemaphore(value: 0)
        let line = Mutex("")
        DispatchQueue.global().async {
            while !line.withLock({ $0.contains("\"name\":\"a.txt\"") }) {
                let data = out.fileHandleForReading.availableData
                if data.isEmpty { break }
                line.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
            arrived.signal()
        }
        // Waits for the line while uti still runs (it is stopped only afterwards).
        #expect(arrived.wait(timeout: .now() + hangLimit) == .success, "the line never came: hung")
        #expect(process.isRunning)
        #expect(line.withLock { $0 }.contains("\"name\":\"a.txt\""))
    }
}
