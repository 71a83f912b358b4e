#if canImport(Glibc)
    import Glibc
#endif

/// A program started without a shell: `posix_spawnp` with the arguments as
/// bytes (a path need not be UTF-8), this process's environment with
/// `adding` set in it, no signal blocked and every signal at its default
/// (`withDefaultSignalAttributes`), and, when given, its standard input and
/// output on descriptors of the caller's. The one way the package starts a
/// program.
package struct ChildProcess: Sendable {
    package let pid: pid_t

    /// Starts `argv` (its first element is the program, looked up on `PATH`
    /// as `execvp` does). With `ownProcessGroup`, the program leads a
    /// process group of its own, so that what it starts can be signalled
    /// with it (`waitForwardingTermination`). Throws the error
    /// `posix_spawnp` gave.
    package static func spawn(
        _ argv: [[UInt8]], adding environment: [String: String] = [:], standardInput: Int32? = nil,
        standardOutput: Int32? = nil, ownProcessGroup: Bool = false
    ) throws(SystemError) -> ChildProcess {
        let error = withSpawnArguments(argv, adding: environment) { arguments, variables in
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            if let standardInput { posix_spawn_file_actions_adddup2(&actions, standardInput, 0) }
            if let standardOutput { posix_spawn_file_actions_adddup2(&actions, standardOutput, 1) }
            var pid: pid_t = 0
            let error = withDefaultSignalAttributes { attributes in
                if ownProcessGroup {
                    var flags: Int16 = 0
                    posix_spawnattr_getflags(attributes, &flags)
                    posix_spawnattr_setflags(attributes, flags | Int16(POSIX_SPAWN_SETPGROUP))
                    posix_spawnattr_setpgroup(attributes, 0)
                }
                return posix_spawnp(&pid, arguments[0]!, &actions, attributes, arguments, variables)
            }
            return (error, pid)
        }
        guard error.0 == 0 else { throw SystemError(error.0, call: "posix_spawnp") }
        return ChildProcess(pid: error.1)
    }

    /// Starts `argv` as `spawn` does and returns once the program is
    /// running (its `exec` done), without waiting for it to end, and
    /// leaves nothing to wait for: an intermediate process, forked and
    /// reaped here, starts it in a session of its own and exits, so the
    /// program is not a child of the caller (no zombie when it ends) and
    /// outlives the terminal the caller was started from. Its standard
    /// input is `/dev/null`; its standard output and error are
    /// `standardOutput` and `standardError`, descriptors of the caller's,
    /// or `/dev/null` when nil; no other descriptor of the caller's is
    /// passed on. Returns the program's process ID; throws
    /// the error `posix_spawnp` gave (the program missing or not
    /// executable: the `exec` failed), or that of `fork`.
    package static func startDetached(
        _ argv: [[UInt8]], adding environment: [String: String] = [:], standardOutput: Int32? = nil,
        standardError: Int32? = nil
    ) throws(SystemError) -> pid_t {
        // Its far end is closed on exec: the program never holds it.
        var report: [Int32] = [-1, -1]
        _ = try valueOrErrno("pipe") { pipe(&report) }
        defer { close(report[0]) }
        for fd in report { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        // The report is read after the intermediate process ended: never waiting on a pipe's end.
        _ = fcntl(report[0], F_SETFL, O_NONBLOCK)
        let forked: Int32 = withSpawnArguments(argv, adding: environment) { arguments, variables in
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            for (fd, given) in [(Int32(1), standardOutput), (2, standardError)] {
                if let given {
                    posix_spawn_file_actions_adddup2(&actions, given, fd)
                } else {
                    posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_WRONLY, 0)
                }
            }
            // Before the fork: in the forked copy, only plain calls on memory made here.
            let program = arguments[0]!
            let inherited = openDescriptors().filter { $0 > 2 }
            let writeEnd = report[1]
            return arguments.withUnsafeBufferPointer { argumentList in
                variables.withUnsafeBufferPointer { variableList in
                    inherited.withUnsafeBufferPointer { descriptors in
                        withDefaultSignalAttributes { attributes in
                            let intermediate = fork()
                            if intermediate == 0 {
                                // A forked copy of a process that may have other threads: no allocation, no locks.
                                var index = 0
                                while index < descriptors.count {
                                    _ = fcntl(descriptors[index], F_SETFD, FD_CLOEXEC)
                                    index += 1
                                }
                                var result: (Int32, pid_t) = (0, 0)
                                _ = setsid()
                                result.0 = posix_spawnp(
                                    &result.1, program, &actions, attributes, argumentList.baseAddress!,
                                    variableList.baseAddress!)
                                _ = withUnsafeBytes(of: &result) { write(writeEnd, $0.baseAddress, $0.count) }
                                _exit(0)
                            }
                            return intermediate == -1 ? -errno : intermediate
                        }
                    }
                }
            }
        }
        close(report[1])
        if forked < 0 { throw SystemError(-forked, call: "fork") }
        // The intermediate process is this caller's child: reaped here, whoever else waits.
        var status: Int32 = 0
        _ = retryingInterrupts { waitpid(forked, &status, 0) }
        var result: (Int32, pid_t) = (0, 0)
        let count = withUnsafeMutableBytes(of: &result) { read(report[0], $0.baseAddress, $0.count) }
        guard count == MemoryLayout<(Int32, pid_t)>.size else {
            throw SystemError(ECHILD, call: "fork")
        }
        guard result.0 == 0 else { throw SystemError(result.0, call: "posix_spawnp") }
        return result.1
    }

    /// The descriptors open in this process, from `/proc/self/fd`.
    private static func openDescriptors() -> [Int32] {
        guard let folder = opendir("/proc/self/fd") else { return [] }
        defer { closedir(folder) }
        var found: [Int32] = []
        while let entry = readdir(folder) {
            let number = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { atoi($0) }
            }
            if UInt8(bitPattern: entry.pointee.d_name.0) != UInt8(ascii: ".") { found.append(number) }
        }
        return found
    }

    /// Runs `body` with `argv` and this process's environment, `adding`
    /// set in it, as the NUL-terminated C arrays `posix_spawnp` takes.
    private static func withSpawnArguments<T>(
        _ argv: [[UInt8]], adding environment: [String: String],
        _ body: ([UnsafeMutablePointer<CChar>?], [UnsafeMutablePointer<CChar>?]) -> T
    ) -> T {
        precondition(!argv.isEmpty, "a program to start")
        func cString(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar>? {
            (bytes.filter { $0 != 0 } + [0]).withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { strdup($0.baseAddress!) }
            }
        }
        var arguments: [UnsafeMutablePointer<CChar>?] = argv.map(cString)
        arguments.append(nil)
        var variables: [UnsafeMutablePointer<CChar>?] = []
        var index = 0
        while let entry = environ[index] {
            let name = String(cString: entry).split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            if environment[name] == nil { variables.append(strdup(entry)) }
            index += 1
        }
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) {
            variables.append(cString(Array((name + "=" + value).utf8)))
        }
        variables.append(nil)
        defer { for pointer in arguments + variables { free(pointer) } }
        return body(arguments, variables)
    }

    /// Waits for the program to end.
    package func wait() throws(SystemError) -> ChildExit { try waitForChild(pid) }

    /// Waits for the program to end, for a caller that has SIGINT and
    /// SIGTERM blocked (a watch): either signal arriving meanwhile is sent
    /// on to the program (to its process group when it leads one, so what
    /// it started stops with it) and, once it has ended, raised again in
    /// the calling thread, so the caller stops as it would have; `signal`
    /// is the first such signal. A second one while the program still runs
    /// (it ignored the first) ends it with SIGKILL, as a second Ctrl-C
    /// does in watchexec, and is taken here: the caller sees one.
    package func waitForwardingTermination() throws(SystemError) -> (exit: ChildExit, signal: Int32?) {
        var forwarded: Int32?
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        let target = getpgid(pid) == pid ? -pid : pid
        while true {
            var info = siginfo_t()
            // Ended? (It is reaped below.)
            if waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0
                || info._sifields._sigchld.si_pid == pid
            {
                break
            }
            var tick = timespec(tv_sec: 0, tv_nsec: 50_000_000)
            let signal = sigtimedwait(&signals, nil, &tick)
            guard signal == SIGINT || signal == SIGTERM else { continue }
            if forwarded == nil {
                forwarded = signal
                kill(target, signal)
            } else {
                kill(target, SIGKILL)
            }
        }
        let exit = try waitForChild(pid)
        if let forwarded { pthread_kill(pthread_self(), forwarded) }
        return (exit, forwarded)
    }
}
