import Foundation
import TestSupport
import Testing

/// A folder moved across file systems is set aside (moved into a hidden
/// folder of the Inbox, recorded) before its copy is published: a run
/// killed once the copy is out leaves the next run a record of the copy,
/// never the whole folder still in the Inbox to copy again as `P-1.app`.
/// The order of the two renames, as strace sees the built binary make
/// them, is what makes that so for every moment a kill can land; and the
/// staging folder is removed before the Inbox, so that a run killed
/// between the two still leaves an Inbox to bring the next run to it.
@Suite struct CrossDeviceStepOrderTests {
    static let strace = ["/usr/bin/strace", "/bin/strace"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(
        .enabled(if: strace != nil, "strace is not installed"),
        .enabled(if: InboxCommandTests.otherFileSystem, "needs /dev/shm on another file system"))
    func aFolderIsSetAsideBeforeItsCopyIsPublished() throws {
        let tree = try InboxTree(), remote = try InboxTree(base: "/dev/shm")
        try FileManager.default.createDirectory(
            atPath: remote.inbox + "/P.app/Contents", withIntermediateDirectories: true)
        remote.write(remote.inbox + "/P.app/Contents", "a.txt", "a")
        let log = tree.root + "/strace.log"
        let run = try Run(
            [
                "-f", "-e", "trace=renameat2,renameat,rename,unlinkat", "-o", log, Run.binary.path, "inbox",
                tree.documents,
                "--inbox", remote.inbox, "--settle", "0", "--no-system",
            ], environment: ["UTI_CACHE_DIR": ""], executable: Self.strace!)
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        #expect(tree.files(under: tree.documents) == ["Documents/P.app/Contents/a.txt": "a"])
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        // Each successful rename as (from, to): the source leaves the Inbox
        // for the hidden folder as "item"; the staged copy becomes "P.app".
        let renames: [(from: String, to: String)] = lines.compactMap { line in
            guard line.contains("rename"), line.hasSuffix("= 0") else { return nil }
            let quoted = line.split(separator: "\"", omittingEmptySubsequences: false)
            guard quoted.count >= 5 else { return nil }
            return (String(quoted[1]), String(quoted[3]))
        }
        let setAside = renames.firstIndex { $0.from == "P.app" && $0.to == "item" }
        let published = renames.firstIndex { $0.from != "P.app" && $0.to == "P.app" }
        let aside = try #require(setAside, "\(renames)")
        let publish = try #require(published, "\(renames)")
        #expect(aside < publish, "\(renames)")
        // The staging folder goes before the Inbox does: a run killed between
        // the two leaves an Inbox, which brings the next run to the records.
        let removals = lines.filter { $0.contains("unlinkat(") && $0.contains("AT_REMOVEDIR") && $0.hasSuffix("= 0") }
        let staging = removals.firstIndex { $0.contains("\".uti-staging-") }
        let inbox = removals.firstIndex { $0.contains("\"Inbox\", AT_REMOVEDIR") }
        let stagingGone = try #require(staging, "\(removals)")
        let inboxGone = try #require(inbox, "\(removals)")
        #expect(stagingGone < inboxGone, "\(removals)")
    }
}
