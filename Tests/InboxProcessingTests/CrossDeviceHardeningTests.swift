import Foundation
import Glibc
import Synchronization
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

    /// A line appended after the copy, while the run is still naming it (a
    /// taken name), stays: the copy is withdrawn and the file waits.
    @Test(.enabled(if: otherFileSystem, "needs /dev/shm on another file system"))
    func anAppendAfterTheCopyIsNeverLost() throws {
        let tree = Tree()
        let remote = Tree(base: "/dev/shm")
        remote.write(remote.inbox, "log.txt", "first\n")
        tree.write(tree.documents, "log.txt", "taken")
        let source = remote.inbox + "/log.txt"
        let calls = Mutex(0)
        let appending = InboxProcessor(documents: tree.documents, options: {
            var options = InboxProcessor.Options()
            options.settle = SettlePolicy(interval: 0, checkWriters: false)
            options.inbox = remote.inbox
            return options
        }(), isKnownExtension: { bytes in
            // Asked once before the copy and again while naming after it.
            if calls.withLock({ $0 += 1; return $0 }) == 2 {
                let fd = open(source, O_WRONLY | O_APPEND)
                _ = write(fd, "second\n", 7)
                close(fd)
            }
            return knownExtensions(bytes)
        })
        let (reports, _) = try run(appending)
        #expect(reports[FileName("log.txt")]?.outcome == .waiting(.changedRecently(secondsAgo: 0)))
        #expect(remote.read(remote.inbox, "log.txt") == "first\nsecond\n")
        #expect(tree.textNames(tree.documents) == ["Inbox", "log.txt"])   // the copy was withdrawn
        let (again, _) = try run(processor(tree) { $0.inbox = remote.inbox })
        #expect(again[FileName("log.txt")]?.outcome == .moved(to: FileName("log-1.txt"), copied: true))
        #expect(tree.read(tree.documents, "log-1.txt") == "first\nsecond\n")
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
        #expect(copy.st_blocks * 512 < 1 << 20, "\(copy.st_blocks * 512) bytes allocated for a file with 11 bytes of data")
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
        let inner = InboxProcessor(documents: tree.inbox + "/Documents", options: {
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
        #expect(NumberedName(FileName(".profile"), isKnownExtension: knownExtensions).numbered(1) == FileName(".profile-1"))
        #expect(NumberedName(FileName("x...tar.gz"), isKnownExtension: knownExtensions).numbered(2) == FileName("x..-2.tar.gz"))
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

/// What a run killed in the middle of a cross-device folder move leaves is
/// finished by the next run, never published again in part.
@Suite struct InterruptedFolderMoveTests {
    /// A process number no process has (above the kernel's limit).
    static let deadPID = "99999999"

    @Test func partialCopiesOfDeadRunsAreRemoved() throws {
        let tree = Tree()
        let stale = tree.documents + "/.uti-inbox-\(Self.deadPID)-7-0.partial"
        mkdir(stale, 0o700)
        tree.write(stale, "half.txt", "half")
        let mine = tree.documents + "/.uti-inbox-\(getpid())-7-0.partial"   // a running process's copy
        mkdir(mine, 0o700)
        tree.write(tree.inbox, "a.txt", "a")
        let (_, summary) = try run(processor(tree))
        #expect(summary.moved == 1)
        #expect(!tree.exists(stale))
        #expect(tree.exists(mine))
    }

    @Test func anInterruptedRemovalIsFinishedNotPublishedAgain() throws {
        let tree = Tree()
        // The published copy, and what the killed run had not removed yet.
        mkdir(tree.documents + "/Pack.app", 0o755)
        mkdir(tree.documents + "/Pack.app/Contents", 0o755)
        tree.write(tree.documents + "/Pack.app/Contents", "Info.plist", "info")
        let hidden = tree.inbox + "/.uti-inbox-removing-\(Self.deadPID)-1-0"
        mkdir(hidden, 0o755)
        mkdir(hidden + "/Contents", 0o755)
        tree.write(hidden + "/Contents", "Info.plist", "info")
        var copied = tree.status(tree.documents + "/Pack.app/Contents/Info.plist")
        var times = [copied.st_atim, copied.st_mtim]
        utimensat(AT_FDCWD, hidden + "/Contents/Info.plist", &times, 0)
        tree.write(hidden, ".uti-inbox-journal", "Pack.app\u{0}Pack.app")
        let (reports, summary) = try run(processor(tree))
        #expect(reports.isEmpty, "\(reports)")
        #expect(summary.recoveryProblems == [])
        #expect(!tree.exists(hidden))
        #expect(tree.textNames(tree.documents) == ["Pack.app"])   // the emptied Inbox went too
        copied = tree.status(tree.documents + "/Pack.app/Contents/Info.plist")
        #expect(copied.st_size == 4)
    }

    @Test func aFolderWithoutItsJournalIsKeptAndReported() throws {
        let tree = Tree()
        let hidden = tree.inbox + "/.uti-inbox-removing-\(Self.deadPID)-2-0"
        mkdir(hidden, 0o755)
        tree.write(hidden, "data.txt", "keep me")
        let (reports, summary) = try run(processor(tree))
        #expect(reports.isEmpty)
        #expect(summary.recoveryProblems.count == 1 && summary.recoveryProblems[0].contains("without its journal"))
        #expect(!summary.isComplete)
        #expect(tree.read(hidden, "data.txt") == "keep me")
    }

    @Test func aFolderChangedAfterItsCopyNoLongerMatches() throws {
        let tree = Tree()
        mkdir(tree.inbox + "/Pack.app", 0o755)
        tree.write(tree.inbox + "/Pack.app", "one.txt", "1")
        let folder = try FolderDescriptor.open(tree.inbox + "/Pack.app")
        var record = CopiedTree()
        record.files = [(FileName("one.txt"), FileIdentity(tree.status(tree.inbox + "/Pack.app/one.txt")))]
        #expect(record.matches(folder))
        tree.write(tree.inbox + "/Pack.app", "two.txt", "2")
        #expect(!record.matches(folder))
    }
}
