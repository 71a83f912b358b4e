import DocumentHandlers
import Foundation
import SystemBase
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `OpenPlan.Command.start`: returns once the program runs, which is not
/// this process's child, in a session of its own, reading `/dev/null`;
/// a program that cannot be run is an error with its `errno`.
@Suite struct ApplicationStartTests {
    /// The fields of `/proc/PID/stat` after the command name: state, parent, group, session…
    static func stat(_ pid: pid_t) -> [Substring]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    @Test func startsDetachedAndReturnsWhileItRuns() throws {
        let folder = TemporaryFolder("uti-start")
        let record = folder.path("record")
        let release = folder.path("release")
        // Records where its standard input comes from, then waits to be released.
        let script = """
            readlink /proc/self/fd/0 > "$1.part"; mv "$1.part" "$1"
            while [ ! -e "$2" ]; do sleep 0.02; done
            """
        let command = OpenPlan.Command(arguments: ["/bin/sh", "-c", script, "sh", record, release])
        let pid = try command.start()
        defer {
            _ = FileManager.default.createFile(atPath: release, contents: nil)
            kill(pid, SIGKILL)
        }
        // The limit only stops a run that hangs.
        for _ in 0..<6000 where access(record, F_OK) != 0 { usleep(10_000) }
        #expect(try String(contentsOfFile: record, encoding: .utf8) == "/dev/null\n")
        let fields = try #require(Self.stat(pid))
        #expect(fields[0] != "Z", "still running")
        #expect(Int32(fields[1]) != getpid(), "not this process's child: nothing to wait for")
        #expect(Int32(fields[3]) != getsid(0), "a session of its own")
    }

    @Test func aProgramThatCannotRunIsAnErrorWithItsErrno() throws {
        let folder = TemporaryFolder("uti-start")
        try folder.write("plain", "not a program\n")
        try folder.write("script", "#!/nonexistent/interpreter\n")
        chmod(folder.path("script"), 0o755)
        for (program, code) in [
            (folder.path("missing"), ENOENT), (folder.path("plain"), EACCES), (folder.path("script"), ENOENT),
            ("no-such-program-anywhere", ENOENT),
        ] {
            #expect(throws: SystemError(code, call: "posix_spawnp"), "\(program)") {
                try OpenPlan.Command(arguments: [program]).start()
            }
        }
    }

    @Test func runWaitsAndGivesTheStatus() throws {
        #expect(try OpenPlan.Command(arguments: ["/bin/sh", "-c", "exit 3"]).run() == 3)
        #expect(try OpenPlan.Command(arguments: ["/bin/sh", "-c", "kill -TERM $$"]).run() == 128 + SIGTERM)
    }
}
