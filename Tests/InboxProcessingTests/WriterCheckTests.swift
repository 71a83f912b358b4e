import Foundation
import Glibc
import SystemBase
import Testing

@testable import InboxProcessing

/// Whether a writer is still at work, where a read lease cannot tell.
@Suite struct WriterCheckTests {
    @Test func procShowsFilesOpenForWriting() throws {
        let tree = Tree()
        tree.write(tree.inbox, "log.txt", "start\n")
        var info = stat()
        #expect(stat(tree.inbox + "/log.txt", &info) == 0)
        let identity = OpenFileScan.Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        let reader = open(tree.inbox + "/log.txt", O_RDONLY)
        #expect(!OpenFileScan.scan().writers.contains(identity))  // open for reading only
        let writer = open(tree.inbox + "/log.txt", O_WRONLY | O_APPEND)
        #expect(OpenFileScan.scan().writers.contains(identity))
        close(writer)
        close(reader)
        #expect(!OpenFileScan.scan().writers.contains(identity))
    }

    /// Without leases (as for another user's file), a file open for writing
    /// is never taken: it waits while written (or while it cannot be told),
    /// and moves once closed when every process can be seen.
    @Test func withoutALeaseAWriterStillHoldsTheFileBack() throws {
        let tree = Tree()
        tree.write(tree.inbox, "log.txt", "start\n")
        let writer = open(tree.inbox + "/log.txt", O_WRONLY | O_APPEND)
        let open = processor(tree) { $0.settle.usesLeases = false }
        let (reports, _) = try run(open)
        let canSeeEveryone = OpenFileScan.scan().complete
        if canSeeEveryone {
            #expect(reports[FileName("log.txt")]?.outcome == .waiting(.openForWriting))
        } else if case .waiting(.writerUnknown) = reports[FileName("log.txt")]?.outcome {
        } else {
            Issue.record("taken while written: \(String(describing: reports[FileName("log.txt")]?.outcome))")
        }
        close(writer)
        usleep(200_000)  // past the reuse of the last /proc scan
        let (after, _) = try run(open)
        if canSeeEveryone {
            guard case .moved = after[FileName("log.txt")]?.outcome else {
                Issue.record("not moved once closed")
                return
            }
        }
    }
}
