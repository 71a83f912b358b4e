import Glibc
import Testing

@testable import InboxProcessing

/// A run is running while its process runs: a process that was killed and
/// waits only to be reaped (a zombie) has ended, so the next run finishes
/// what it left at once instead of leaving it for a later one.
@Suite struct RunIdentityTests {
    @Test func aProcessWaitingToBeReapedHasEnded() throws {
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("60"), nil]
        defer { for pointer in argv { free(pointer) } }
        try #require(posix_spawn(&pid, "/bin/sleep", nil, nil, argv, nil) == 0)
        let start = try #require(RunIdentity.startTime(of: pid), "a running child has a start time")
        let run = RunIdentity(machine: RunIdentity.current.machine, pid: pid, start: start)
        #expect(run.mayBeRunning)
        kill(pid, SIGKILL)
        // Killed, not yet waited for: the kernel keeps it as a zombie, which `waitid` with WNOWAIT leaves so.
        var info = siginfo_t()
        try #require(waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == 0)
        #expect(RunIdentity.startTime(of: pid) == nil)
        #expect(!run.mayBeRunning)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
}
