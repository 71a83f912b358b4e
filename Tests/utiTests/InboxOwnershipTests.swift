import Foundation
import Glibc
import TestSupport
import Testing

/// Through the built tool: no name in Documents or the Inbox is special,
/// every free-name search ends, and a run as root neither publishes a copy
/// whose owner it could not keep nor follows another user's link.
@Suite(.serialized) struct InboxOwnershipTests {
    static var otherFileSystem: Bool { InboxCommandTests.otherFileSystem }

    /// The 12 hex digits of this machine's id that earlier versions put in
    /// their internal names.
    static let machine: String = {
        let id = (try? String(contentsOfFile: "/etc/machine-id", encoding: .utf8)) ?? ""
        let hex = id.prefix { $0.isHexDigit }.prefix(12).drop { $0 == "0" }
        return hex.isEmpty ? "0" : String(hex)
    }()

    /// Names earlier versions gave their own entries (a partial copy of a
    /// run that has ended; a folder being removed), and this version's.
    static var formerInternalNames: [String] {
        [
            ".uti-inbox-\(machine)-99999999-12345-777-0.partial", ".uti-inbox-removing-\(machine)-99999999-12345-1-0",
            ".uti-staging-1", ".uti-moving-1",
        ]
    }

    /// A user's folders named like any internal entry survive runs that
    /// move items across file systems (and so run recovery), and the same
    /// names delivered to the Inbox are moved as documents.
    @Test(.enabled(if: otherFileSystem, "needs /dev/shm on another file system"))
    func foldersNamedLikeInternalEntriesAreTheUsersData() throws {
        let tree = try InboxTree(), remote = try InboxTree(base: "/dev/shm")
        for name in Self.formerInternalNames {
            try tree.folder.makeFolder("Documents/\(name)/chapters")
            tree.write(tree.documents + "/\(name)/chapters", "ch1.tex", "chapter one")
            try remote.folder.makeFolder("Documents/Inbox/\(name)")
            tree.write(remote.inbox + "/\(name)", "delivered.txt", "delivered")
        }
        remote.write(remote.inbox, "a.txt", "a")
        let run = try Run(["inbox", tree.documents, "--inbox", remote.inbox, "--settle", "0", "--no-system"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let again = try Run(["inbox", tree.documents, "--inbox", remote.inbox, "--settle", "0", "--no-system"])
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        let files = tree.files(under: tree.documents)
        for name in Self.formerInternalNames {
            #expect(files["Documents/\(name)/chapters/ch1.tex"] == "chapter one", "\(name)")
            // The counter goes before an extension, as for any name.
            let numbered =
                name.hasSuffix(".partial") ? String(name.dropLast(".partial".count)) + "-1.partial" : name + "-1"
            #expect(files["Documents/\(numbered)/delivered.txt"] == "delivered", "\(name): \(files.keys.sorted())")
        }
        #expect(files["Documents/a.txt"] == "a")
    }

    /// The attack of a second user on a shared Documents folder (group
    /// writable, no sticky bit): Alice may not delete Bob's files, but may
    /// rename his folder to the name of a partial copy of a run that ended.
    /// Bob's next run, which moves an item across file systems, keeps it.
    @Test(
        .enabled(
            if: geteuid() == 0 && otherFileSystem && access("/usr/bin/setpriv", X_OK) == 0,
            "needs root, setpriv and /dev/shm on another file system"))
    func anotherUsersRenameNeverMakesARunRemoveAFolder() throws {
        let tree = try InboxTree(), remote = try InboxTree(base: "/dev/shm")
        let (bob, alice, group): (uid_t, uid_t, gid_t) = (4243, 4244, 4250)
        try tree.folder.makeFolder("Documents/bobs-thesis")
        tree.write(tree.documents + "/bobs-thesis", "ch1.tex", "chapter one")
        try tree.folder.makeFolder("bob-home")
        remote.write(remote.inbox, "a.txt", "a")
        for path in [tree.root, remote.root] { chmod(path, 0o755) }
        for path in [
            tree.documents, tree.documents + "/bobs-thesis", tree.documents + "/bobs-thesis/ch1.tex", tree.inbox,
            tree.root + "/bob-home", remote.documents, remote.inbox, remote.inbox + "/a.txt",
        ] {
            #expect(chown(path, bob, group) == 0, "\(path)")
        }
        chmod(tree.documents, 0o775)
        chmod(tree.root + "/bob-home", 0o700)
        func run(as user: uid_t, _ executable: String, _ arguments: [String]) throws -> Run {
            try Run(
                ["--reuid=\(user)", "--regid=\(group)", "--clear-groups", executable] + arguments,
                environment: [
                    "HOME": tree.root + "/bob-home", "XDG_STATE_HOME": tree.root + "/bob-home/state",
                    "UTI_CACHE_DIR": "",
                ], executable: "/usr/bin/setpriv")
        }
        let renamed = tree.documents + "/" + Self.formerInternalNames[0]
        let move = try run(as: alice, "/bin/mv", [tree.documents + "/bobs-thesis", renamed])
        #expect(move.status == 0, "\(move.stderr)")
        let inbox = try run(
            as: bob, Run.binary.path,
            ["inbox", tree.documents, "--inbox", remote.inbox, "--settle", "0", "--no-system"])
        #expect(inbox.status == 0, "\(inbox.stdout)\(inbox.stderr)")
        #expect(tree.files(under: renamed)[renamed.dropFirst(tree.root.count + 1) + "/ch1.tex"] == "chapter one")
        #expect(tree.files(under: tree.documents)["Documents/a.txt"] == "a")
    }

    /// A name that completes a former partial-copy pattern, delivered twice,
    /// gets a counter: the search for a free name ends, in a dry run too.
    @Test(.timeLimit(.minutes(10)))
    func aPartialCopyNameDeliveredTwiceGetsACounter() throws {
        let tree = try InboxTree()
        let name = ".uti-inbox-\(Self.machine)-1-2-3.partial"
        tree.write(tree.inbox, name, "first")
        let first = try Run(["inbox", tree.documents, "--settle", "0", "--no-system"])
        #expect(first.status == 0, "\(first.stderr)")
        try tree.folder.makeFolder("Documents/Inbox")
        tree.write(tree.inbox, name, "second")
        let numbered = ".uti-inbox-\(Self.machine)-1-2-3-1.partial"
        let dry = try Run(["inbox", tree.documents, "--settle", "0", "--no-system", "--dry-run"])
        #expect(dry.status == 0 && dry.stdout.contains("-> \(numbered)"), "\(dry.stdout)\(dry.stderr)")
        let second = try Run(["inbox", tree.documents, "--settle", "0", "--no-system"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(
            tree.files(under: tree.documents) == ["Documents/\(name)": "first", "Documents/\(numbered)": "second"])
    }

    /// Whether `unshare -r` makes a user namespace here, where root maps
    /// only itself, so that giving a file to any other user fails as it
    /// does for a user over quota.
    static let userNamespaces: Bool = {
        guard geteuid() == 0, access("/usr/bin/unshare", X_OK) == 0 else { return false }
        return (try? ProgramRun(URL(fileURLWithPath: "/usr/bin/unshare"), ["-r", "/bin/true"], environment: [:]))?
            .status == 0
    }()

    /// Root moving another user's items across file systems where their
    /// owner cannot be set: nothing is published owned by root; each item
    /// stays in the Inbox, the error names the call, and the exit is 1.
    @Test(
        .enabled(
            if: otherFileSystem && userNamespaces, "needs root, user namespaces and /dev/shm on another file system"))
    func anItemWhoseOwnerCannotBeKeptIsNotPublished() throws {
        let tree = try InboxTree(), remote = try InboxTree(base: "/dev/shm")
        remote.write(remote.inbox, "a.txt", "a")
        symlink("/etc/hostname", remote.inbox + "/alink")
        for path in [remote.inbox + "/a.txt", remote.inbox + "/alink"] {
            #expect(lchown(path, 4242, 4242) == 0)
        }
        let run = try Run(
            // No writer check: in the namespace, the processes of other users (other tests') cannot be seen.
            [
                "-r", Run.binary.path, "inbox", tree.documents, "--inbox", remote.inbox, "--settle", "0", "--no-system",
                "--no-writer-check",
            ],
            executable: "/usr/bin/unshare")
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("a.txt: not moved") && run.stderr.contains("fchown"), "\(run.stderr)")
        #expect(run.stderr.contains("alink: not moved") && run.stderr.contains("fchownat"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tree.documents).filter { $0 != "Inbox" } == [])
        #expect(remote.files(under: remote.inbox) == ["Documents/Inbox/a.txt": "a"])
        var info = stat()
        #expect(lstat(remote.inbox + "/alink", &info) == 0 && info.st_uid == 4242)
    }

    /// Documents reached through a link another user owns is not used.
    @Test(.enabled(if: geteuid() == 0, "needs root to give a link to another user"))
    func documentsThroughAnotherUsersLinkIsRefused() throws {
        let tree = try InboxTree()
        tree.write(tree.inbox, "a.txt", "a")
        let link = tree.root + "/docs"
        symlink(tree.documents, link)
        #expect(lchown(link, 4242, 4242) == 0)
        let run = try Run(["inbox", link, "--settle", "0", "--no-system"])
        #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("symbolic link owned by user 4242"), "\(run.stderr)")
        #expect(tree.files(under: tree.documents) == ["Documents/Inbox/a.txt": "a"])
        // The running user's own link is followed.
        #expect(lchown(link, 0, 0) == 0)
        let own = try Run(["inbox", link, "--settle", "0", "--no-system"])
        #expect(own.status == 0, "\(own.stderr)")
        #expect(tree.files(under: tree.documents) == ["Documents/a.txt": "a"])
    }
}
