import Foundation
import Glibc
import SystemBase
import TestSupport
import Testing

@testable import InboxProcessing

/// The codes of real failures of a run: the run's own (`Failure`), and
/// each item's (`ItemFailure`) and outcome.
@Suite struct InboxErrorCodeTests {
    static func failure(_ processor: InboxProcessor) -> InboxProcessor.Failure? {
        do {
            _ = try run(processor)
            return nil
        } catch let error as InboxProcessor.Failure {
            return error
        } catch {
            Issue.record("\(error)")
            return nil
        }
    }

    @Test func runFailuresHaveTheirCode() throws {
        let tree = Tree()
        tree.write(tree.root, "plain.txt", "a file")
        func with(documents: String, inbox: String = "Inbox") -> InboxProcessor {
            var options = InboxProcessor.Options()
            options.inbox = inbox
            options.recordFolder = tree.records
            return InboxProcessor(documents: documents, options: options, isKnownExtension: knownExtensions)
        }
        mkdir(tree.inbox + "/Documents", 0o755)
        let cases: [(InboxProcessor, InboxProcessor.Failure.Code, String)] = [
            (with(documents: tree.root + "/nowhere"), .notFound, tree.root + "/nowhere: No such file or directory"),
            (with(documents: tree.root + "/plain.txt"), .notAFolder, tree.root + "/plain.txt: is not a folder"),
            (
                with(documents: tree.documents, inbox: tree.documents), .foldersOverlap,
                tree.documents + ": is the Documents folder itself; give another --inbox"
            ),
            (
                with(documents: tree.inbox + "/Documents", inbox: tree.inbox), .foldersOverlap,
                tree.inbox + "/Documents: is inside the Inbox \(tree.inbox); a folder cannot be moved into itself"
            ),
        ]
        for (processor, code, description) in cases {
            let error = try #require(Self.failure(processor), "\(description): the run went on")
            #expect(error.code == code, "\(error)")
            #expect(error.description == description)
        }
        #expect(Self.failure(with(documents: tree.root + "/nowhere"))?.systemError?.kind == .notFound)
        // The same Documents with its own Inbox runs.
        #expect(Self.failure(with(documents: tree.documents)) == nil)
    }

    /// A relative link whose target would read otherwise from Documents
    /// fails with its code; a plain one moves.
    @Test func itemFailuresHaveTheirCode() throws {
        let tree = Tree()
        symlink("x/../photo.jpg", tree.inbox + "/unknowable")
        symlink("photo.jpg", tree.inbox + "/plain-link")
        let (reports, _) = try run(processor(tree))
        guard case .failed(let link)? = reports[FileName("unknowable")]?.outcome else {
            Issue.record("\(String(describing: reports[FileName("unknowable")]))")
            return
        }
        #expect(link.code == .linkWouldBreak && link.systemError == nil)
        #expect(link.message.contains("goes up after a name"))
        #expect(reports[FileName("plain-link")]?.outcome == .moved(to: FileName("plain-link"), copied: false))
    }

    /// Across file systems (the Inbox on /dev/shm): an unusable record
    /// folder, a FIFO in a folder, a folder another run holds and a file a
    /// writer holds each end as their code says.
    @Test(.enabled(if: CrossDeviceHardeningTests.otherFileSystem, "needs /dev/shm on another file system"))
    func crossDeviceOutcomesHaveTheirCode() throws {
        let tree = Tree()
        let remote = Tree(base: "/dev/shm")
        remote.write(remote.inbox, "a.txt", "a")
        mkdir(remote.inbox + "/Pipes", 0o755)
        mkfifo(remote.inbox + "/Pipes/fifo", 0o644)
        mkdir(remote.inbox + "/Held", 0o755)
        remote.write(remote.inbox + "/Held", "b.txt", "b")
        remote.write(remote.inbox, "log.txt", "first\n")
        let other = open(remote.inbox + "/Held", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(other) }
        #expect(flock(other, LOCK_EX) == 0)
        let writer = open(remote.inbox + "/log.txt", O_WRONLY | O_APPEND | O_CLOEXEC)
        defer { close(writer) }

        // No record folder: a file in its place.
        tree.write(tree.root, "records", "not a folder")
        let (refused, _) = try run(processor(tree) { $0.inbox = remote.inbox })
        guard case .failed(let records)? = refused[FileName("a.txt")]?.outcome else {
            Issue.record("\(String(describing: refused[FileName("a.txt")]))")
            return
        }
        #expect(records.code == .recordsUnavailable, "\(records)")
        #expect(records.systemError?.kind == .notADirectory, "\(records)")
        #expect(records.message.hasPrefix("cannot read the records in \(tree.records): "), "\(records)")
        unlink(tree.records)

        let (reports, _) = try run(processor(tree) { $0.inbox = remote.inbox })
        #expect(reports[FileName("a.txt")]?.outcome == .moved(to: FileName("a.txt"), copied: true))
        guard case .failed(let pipes)? = reports[FileName("Pipes")]?.outcome else {
            Issue.record("\(String(describing: reports[FileName("Pipes")]))")
            return
        }
        #expect(pipes.code == .uncopyableKind, "\(pipes)")
        #expect(pipes.message == "holds fifo, which is not a file, folder or link and cannot be copied")
        #expect(reports[FileName("Held")]?.outcome == .gone)
        #expect(reports[FileName("log.txt")]?.outcome == .waiting(.openForWriting))
    }

    /// A file the run may not remove from the Inbox is not copied:
    /// `notRemovable`, with the refusal's errno.
    @Test(
        .enabled(
            if: CrossDeviceHardeningTests.otherFileSystem && geteuid() != 0,
            "needs /dev/shm on another file system, and not root"))
    func aFileThatCannotBeRemovedIsNotRemovable() throws {
        let tree = Tree()
        let remote = Tree(base: "/dev/shm")
        remote.write(remote.inbox, "a.txt", "a")
        chmod(remote.inbox, 0o555)
        defer { chmod(remote.inbox, 0o755) }
        let (reports, _) = try run(processor(tree) { $0.inbox = remote.inbox })
        guard case .failed(let failure)? = reports[FileName("a.txt")]?.outcome else {
            Issue.record("\(String(describing: reports[FileName("a.txt")]))")
            return
        }
        #expect(failure.code == .notRemovable && failure.systemError?.kind == .permissionDenied, "\(failure)")
    }

    /// What the initializers give: words alone are `other`; a system
    /// error is `permissionDenied` or `systemCallFailed` by its errno.
    @Test func initializersGiveTheirCode() {
        let words: InboxProcessor.ItemFailure = "copied, but \("x")"
        #expect(words.code == .other)
        #expect(InboxProcessor.ItemFailure("x").code == .other)
        #expect(InboxProcessor.ItemFailure(SystemError(EACCES, call: "renameat2")).code == .permissionDenied)
        #expect(InboxProcessor.ItemFailure(SystemError(EIO, call: "pwrite")).code == .systemCallFailed)
    }
}
