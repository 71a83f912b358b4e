import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

@testable import InboxProcessing

/// Moves across file systems (the Inbox on /dev/shm, a tmpfs; Documents on
/// the temporary folder's file system) keep data, holes and privileges right.
@Suite struct CrossDeviceHardeningTests {
    static var otherFileSystem: Bool {
        var shm = stat(), tmp = stat()
        return stat("/dev/shm", &shm) == 0 && stat(NSTemporaryDirectory(), &tmp) == 0 && shm.st_dev != tmp.st_dev
    }

    @Test(.enabled(if: otherFileSystem && geteuid() == 0, "needs root and /dev/shm on another file system"))
    func anotherUsersSetIDProgramIsNeverASetIDRootCopy() throws {
        let tree = Tree()
        let remote = Tree(base: "/dev/shm")
        remote.write(remote.inbox, "tool", "#!/bin/sh\nid\n", mode: 0o755)
        mkdir(remote.inbox + "/Pack.app", 0o755)
        remote.write(remote.inbox + "/Pack.app", "helper", "#!/bin/sh\n", mode: 0o755)
        for path in [remote.inbox + "/tool", remote.inbox + "/Pack.app/helper"] {
            #expect(chown(path, 65534, 65534) == 0)
            #expect(chmod(path, 0o6755) == 0)
        }
        let (_, summary) = try run(processor(tree) { $0.inbox = remote.inbox })
        #expect(summary.moved == 2)
        for path in [tree.documents + "/tool", tree.documents + "/Pack.app/helper"] {
            let info = tree.status(path)
            // Root keeps the owner, so the set-ID bits stay with nobody's program.
            #expect(info.st_uid == 65534 && info.st_gid == 65534, "\(path)")
            #expect(info.st_mode & 0o7777 == 0o6755, "\(path)")
            #expect(!(info.st_uid == 0 && info.st_mode & S_ISUID != 0))
        }
    }

    /// A writer that opens the file by name after it was set aside (here
    /// while the run is naming its copy) makes a new file, which the next
    /// run takes: no line is lost.
    @Test(.enabled(if: otherFileSystem, "needs /dev/shm on another file system"))
    func anAppendAfterTheCopyIsNeverLost() throws {
        let tree = Tree()
        let remote = Tree(base: "/dev/shm")
        remote.write(remote.inbox, "log.txt", "first\n")
        tree.write(tree.documents, "log.txt", "taken")
        let source = remote.inbox + "/log.txt"
        let calls = Mutex(0)
        let appending = InboxProcessor(
            documents: tree.documents,
            options: {
                var options = InboxProcessor.Options()
                options.settle = SettlePolicy(interval: 0, checkWriters: false)
                options.inbox = remote.inbox
                return options
            }(),
            isKnownExtension: { bytes in
                // Asked once before the copy and again while naming after it.
                if calls.withLock({
                    $0 += 1
                    return $0
                }) == 2 {
                    let fd = open(source, O_WRONLY | O_APPEND | O_CREAT, 0o644)
                    _ = write(fd, "second\n", 7)
                    close(fd)
                }
                return knownExtensions(bytes)
            })
        let (reports, _) = try run(appending)
        #expect(reports[FileName("log.txt")]?.outcome == .moved(to: FileName("log-1.txt"), copied: true))
        #expect(tree.read(tree.documents, "log-1.txt") == "first\n")
        #expect(remote.read(remote.inbox, "log.txt") == "second\n")
        let (again, _) = try run(processor(tree) { $0.inbox = remote.inbox })
        #expect(again[FileName("log.txt")]?.outcome == .moved(to: FileName("log-2.txt"), copied: true))
        #expect(tree.read(tree.documents, "log-2.txt") == "second\n")
    }

    /// A writer that already holds the file open when it is set aside keeps
    /// it in the Inbox, as it would a file that is not moved across.
    @Test(.enabled(if: otherFileSystem, "needs /dev/shm on another file system"))
    func aWriterHoldingTheFileKeepsItWaiting() throws {
        let tree = Tree()
        let remote = Tree(base: "/dev/shm")
        remote.write(remote.inbox, "log.txt", "first\n")
        let source = remote.inbox + "/log.txt"
        let writer = Mutex<Int32>(-1)
        defer { close(writer.withLock { $0 }) }
        let holding = InboxProcessor(
            documents: tree.documents,
            options: {
                var options = InboxProcessor.Options()
                options.settle = SettlePolicy(interval: 0)
                options.inbox = remote.inbox
                return options
            }(),
            isKnownExtension: { bytes in
                // Asked just before the copy begins, after the writer check of the pass.
                writer.withLock { if $0 < 0 { $0 = open(source, O_WRONLY | O_APPEND) } }
                return knownExtensions(bytes)
            })
        let (reports, _) = try run(holding)
        #expect(reports[FileName("log.txt")]?.outcome == .waiting(.openForWriting))
        #expect(remote.read(remote.inbox, "log.txt") == "first\n")
        #expect(tree.textNames(tree.documents) == ["Inbox"])
        _ = writer.withLock { write($0, "second\n", 7) }
        close(
            writer.withLock { fd in
                defer { fd = -1 }
                return fd
            })
        let (again, _) = try run(processor(tree) { $0.inbox = remote.inbox })
        #expect(again[FileName("log.txt")]?.outcome == .moved(to: FileName("log.txt"), copied: true))
        #expect(tree.read(tree.documents, "log.txt") == "first\nsecond\n")
    }

    /// A file the run may not remove from the Inbox is not copied: no run
    /// makes a second copy of it.
    @Test(.enabled(if: otherFileSystem && geteuid() != 0, "needs /dev/shm on another file system, and not root"))
    func aFileThatCannotBeRemovedIsNeverCopied() throws {
        let tree = Tree()
        let remote = Tree(base: "/dev/shm")
        remote.write(remote.inbox, "a.txt", "a")
        mkdir(remote.inbox + "/Pack.app", 0o755)
        remote.write(remote.inbox + "/Pack.app", "b.txt", "b")
        chmod(remote.inbox, 0o555)
        defer { chmod(remote.inbox, 0o755) }
        for _ in 0..<3 {
            let (reports, summary) = try run(processor(tree) { $0.inbox = remote.inbox })
            #expect(summary.failed == 2)
            for name in ["a.txt", "Pack.app"] {
                guard case .failed(let reason)? = reports[FileName(name)]?.outcome else {
                    Issue.record("\(name): \(String(describing: reports[FileName(name)]))")
                    continue
                }
                #expect(
                    reason.message.contains("cannot be removed from the Inbox")
                        && reason.message.contains("not copied"), "\(reason)")
            }
        }
        #expect(tree.textNames(tree.documents) == ["Inbox"])
        #expect(remote.read(remote.inbox, "a.txt") == "a")
    }

    /// Every file of a folder is checked as a single file is: a folder with
    /// a file still open for writing waits, and nothing written is lost.
    @Test(.enabled(if: otherFileSystem, "needs /dev/shm on another file system"))
    func aFolderWithAFileBeingWrittenWaits() throws {
        let tree = Tree()
        let remote = Tree(base: "/dev/shm")
        mkdir(remote.inbox + "/Pack.app", 0o755)
        remote.write(remote.inbox + "/Pack.app", "done.txt", "done")
        remote.write(remote.inbox + "/Pack.app", "log.txt", "first\n")
        let writer = open(remote.inbox + "/Pack.app/log.txt", O_WRONLY | O_APPEND)
        let (reports, _) = try run(processor(tree) { $0.inbox = remote.inbox })
        #expect(reports[FileName("Pack.app")]?.outcome == .waiting(.openForWriting))
        #expect(tree.textNames(tree.documents) == ["Inbox"])
        _ = write(writer, "second\n", 7)
        close(writer)
        let (again, _) = try run(processor(tree) { $0.inbox = remote.inbox })
        #expect(again[FileName("Pack.app")]?.outcome == .moved(to: FileName("Pack.app"), copied: true))
        #expect(tree.read(tree.documents + "/Pack.app", "log.txt") == "first\nsecond\n")
        #expect(!tree.exists(remote.inbox))
    }

    /// A folder's own files are all copied, whatever their names: one named
    /// like the journal of older versions is data like any other.
    @Test(.enabled(if: otherFileSystem, "needs /dev/shm on another file system"))
    func aFolderHoldingAJournalNamedFileIsCopiedWhole() throws {
        let tree = Tree()
        let remote = Tree(base: "/dev/shm")
        mkdir(remote.inbox + "/Pack.app", 0o755)
        for name in [".uti-inbox-journal", "journal", "item"] { remote.write(remote.inbox + "/Pack.app", name, name) }
        let (reports, _) = try run(processor(tree) { $0.inbox = remote.inbox })
        #expect(reports[FileName("Pack.app")]?.outcome == .moved(to: FileName("Pack.app"), copied: true))
        for name in [".uti-inbox-journal", "journal", "item"] {
            #expect(tree.read(tree.documents + "/Pack.app", name) == name)
        }
        #expect(!tree.exists(remote.inbox))
    }

    /// A folder whose inner file a program holds open without writing it
    /// for longer than the writer window is taken whole, as a single file
    /// would be: never split between Documents and the Inbox.
    @Test(.enabled(if: otherFileSystem, "needs /dev/shm on another file system"))
    func aFolderHeldOpenPastTheWriterWindowMovesWhole() throws {
        let tree = Tree()
        let remote = Tree(base: "/dev/shm")
        mkdir(remote.inbox + "/fold", 0o755)
        remote.write(remote.inbox + "/fold", "inner.txt", "b")
        remote.write(remote.inbox + "/fold", "other.txt", "c")
        let holder = open(remote.inbox + "/fold/inner.txt", O_WRONLY | O_APPEND)
        defer { close(holder) }
        usleep(300_000)
        let (reports, _) = try run(
            processor(tree) {
                $0.inbox = remote.inbox
                $0.settle = SettlePolicy(interval: 0, writerWindow: 0.2)
            })
        #expect(reports[FileName("fold")]?.outcome == .moved(to: FileName("fold"), copied: true))
        #expect(tree.read(tree.documents + "/fold", "inner.txt") == "b")
        #expect(!tree.exists(remote.inbox))
    }

    /// Documents on tmpfs, where copy_file_range is refused and bytes are
    /// copied by hand: only the data segments are written.
    @Test(.enabled(if: otherFileSystem, "needs /dev/shm on another file system"))
    func sparseFilesKeepTheirHoles() throws {
        let tree = Tree(base: "/dev/shm")
        let remote = Tree()
        let path = remote.inbox + "/disk.img"
        let fd = open(path, O_WRONLY | O_CREAT, 0o644)
        let gib: off_t = 1 << 30
        _ = pwrite(fd, "start", 5, 0)
        _ = pwrite(fd, "middle", 6, gib / 2)
        #expect(ftruncate(fd, gib) == 0)
        close(fd)
        let (_, summary) = try run(processor(tree) { $0.inbox = remote.inbox })
        #expect(summary.moved == 1)
        let copy = tree.status(tree.documents + "/disk.img")
        #expect(copy.st_size == gib)
        #expect(
            copy.st_blocks * 512 < 1 << 20, "\(copy.st_blocks * 512) bytes allocated for a file with 11 bytes of data")
        let input = open(tree.documents + "/disk.img", O_RDONLY)
        defer { close(input) }
        var buffer = [UInt8](repeating: 0, count: 6)
        _ = pread(input, &buffer, 6, gib / 2)
        #expect(buffer == Array("middle".utf8))
        _ = pread(input, &buffer, 5, 0)
        #expect(buffer.prefix(5) == Array("start".utf8)[...])
    }
}

/// Names and folders that made the inbox misbehave.
@Suite struct InboxFolderAndNameTests {
    @Test func anInboxThatIsDocumentsOrHoldsItIsRefused() throws {
        let tree = Tree()
        tree.write(tree.documents, "report.pdf", "a")
        do {
            _ = try run(processor(tree) { $0.inbox = tree.documents })
            Issue.record("an Inbox equal to Documents was used")
        } catch let error as InboxProcessor.Failure {
            #expect(error.reason.contains("is the Documents folder itself"))
        }
        #expect(tree.textNames(tree.documents) == ["Inbox", "report.pdf"])
        // Documents inside the Inbox.
        mkdir(tree.inbox + "/Documents", 0o755)
        let inner = InboxProcessor(
            documents: tree.inbox + "/Documents",
            options: {
                var options = InboxProcessor.Options()
                options.inbox = tree.inbox
                options.settle = SettlePolicy(interval: 0)
                return options
            }(), isKnownExtension: knownExtensions)
        do {
            _ = try run(inner)
            Issue.record("a Documents inside its Inbox was used")
        } catch let error as InboxProcessor.Failure {
            #expect(error.reason.contains("is inside the Inbox"))
        }
    }

    @Test func theCounterGoesBeforeTheExtensionAfterADoubleDot() {
        let split = NumberedName(FileName("a..pdf"), isKnownExtension: knownExtensions)
        #expect(split.numbered(1) == FileName("a.-1.pdf"))
        #expect(
            NumberedName(FileName(".profile"), isKnownExtension: knownExtensions).numbered(1) == FileName(".profile-1"))
        #expect(
            NumberedName(FileName("x...tar.gz"), isKnownExtension: knownExtensions).numbered(2)
                == FileName("x..-2.tar.gz"))
    }

    /// A processor used for several passes (as `--watch` does) does not
    /// remember counters of names that have gone since.
    @Test func countersAreNotRememberedAcrossPasses() throws {
        let tree = Tree()
        tree.write(tree.documents, "report.pdf", "old")
        let p = processor(tree) { $0.removeEmptyInbox = false }
        tree.write(tree.inbox, "report.pdf", "first")
        _ = try run(p)
        #expect(tree.read(tree.documents, "report-1.pdf") == "first")
        unlink(tree.documents + "/report-1.pdf")
        tree.write(tree.inbox, "report.pdf", "second")
        let (reports, _) = try run(p)
        #expect(reports[FileName("report.pdf")]?.outcome == .moved(to: FileName("report-1.pdf"), copied: false))
    }
}

/// The library changes no process-wide signal action for longer than a
/// run: SIGIO, ignored while leases are held, has its default back after.
/// Each check runs in a process of its own, where no other test's run can
/// hold a lease meanwhile.
@Suite struct LeaseSignalScopeTests {
    /// SIGIO's action as a word: 0 is SIG_DFL, 1 SIG_IGN, else a handler.
    static func sigioAction() -> Int {
        var current = sigaction()
        sigaction(SIGIO, nil, &current)
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self)
    }

    /// A cross-device run, which takes leases to find writers, then exits
    /// 0 when SIGIO's action is `expected` again.
    /// `exit` runs no deinitializer, so the trees are made, used and
    /// removed before it, and their removal is part of the check.
    static func runThenCheck(hostAction: Int) throws -> Never {
        signal(SIGIO, hostAction == 1 ? SIG_IGN : SIG_DFL)
        let (moved, folders) = try moveOneFileAcross()
        let removed = folders.allSatisfy { !FileManager.default.fileExists(atPath: $0) }
        exit(moved == 1 && removed && sigioAction() == hostAction ? 0 : 1)
    }

    /// Moves one file from an Inbox on /dev/shm; how many moved, and the
    /// temporary folders it used (gone when this returns).
    static func moveOneFileAcross() throws -> (moved: Int, folders: [String]) {
        let tree = Tree()
        let remote = Tree(base: "/dev/shm")
        remote.write(remote.inbox, "a.txt", "a")
        let (_, summary) = try run(processor(tree) { $0.inbox = remote.inbox })
        return (summary.moved, [tree.root, remote.root])
    }

    /// The test trees go with everything in them, on /dev/shm too, after
    /// a run removed the Inbox inside one of them.
    @Test(.enabled(if: CrossDeviceHardeningTests.otherFileSystem, "needs /dev/shm on another file system"))
    func theTreesOfARunAreRemovedAfterIt() throws {
        let (moved, folders) = try LeaseSignalScopeTests.moveOneFileAcross()
        #expect(moved == 1)
        for folder in folders { #expect(!FileManager.default.fileExists(atPath: folder), "\(folder) is left behind") }
    }

    @Test(.enabled(if: CrossDeviceHardeningTests.otherFileSystem, "needs /dev/shm on another file system"))
    func sigioHasItsDefaultActionAgainAfterARun() async {
        await #expect(processExitsWith: .success) { try LeaseSignalScopeTests.runThenCheck(hostAction: 0) }
    }

    @Test(.enabled(if: CrossDeviceHardeningTests.otherFileSystem, "needs /dev/shm on another file system"))
    func anActionTheHostSetIsKept() async {
        await #expect(processExitsWith: .success) { try LeaseSignalScopeTests.runThenCheck(hostAction: 1) }
    }
}
