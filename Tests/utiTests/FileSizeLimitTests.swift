import Foundation
import TestSupport
import Testing

/// Under `ulimit -f`, writing a file past the limit would end uti with
/// SIGXFSZ, no answer given and a temporary file left behind. uti asks
/// first: the compiled registry is not kept (every run reads the sources,
/// with a warning), and an item too large to copy across file systems stays
/// in the Inbox.
@Suite struct FileSizeLimitTests {
    /// `uti ARGUMENTS` under a file size limit of `kib` KiB.
    static func underLimit(_ kib: Int, _ arguments: [String], environment: [String: String]) throws -> Run {
        try Run(
            ["-c", "ulimit -f \(kib) && exec \"$0\" \"$@\"", Run.binary.path] + arguments, environment: environment,
            executable: "/bin/sh")
    }

    @Test func aRegistryLargerThanTheLimitIsNotKept() throws {
        let cache = TemporaryFolder("uti-size-limit")
        let run = try Self.underLimit(
            64, ["-b", "jpg"], environment: ["UTI_CACHE_DIR": cache.path, "XDG_DATA_DIRS": "/usr/share"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "public.jpeg\n")
        #expect(run.stderr.contains("File too large"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.path) == [])
    }

    @Test(.enabled(if: InboxCommandTests.otherFileSystem, "needs /dev/shm on another file system"))
    func anItemLargerThanTheLimitStaysInTheInbox() throws {
        let tree = try InboxTree(), remote = try InboxTree(base: "/dev/shm")
        remote.write(remote.inbox, "small.txt", "small")
        remote.write(remote.inbox, "large.txt", String(repeating: "x", count: 200 * 1024))
        let run = try Self.underLimit(
            64, ["inbox", tree.documents, "--inbox", remote.inbox, "--settle", "0", "--no-system"],
            environment: ["UTI_CACHE_DIR": ""])
        #expect(run.status == 1, "\(run.stdout) \(run.stderr)")
        #expect(run.stderr.contains("large.txt") && run.stderr.contains("ulimit -f"), "\(run.stderr)")
        #expect(tree.files(under: tree.documents) == ["Documents/small.txt": "small"])
        #expect(remote.files(under: remote.inbox).keys.sorted() == ["Documents/Inbox/large.txt"])
    }
}
