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
    /// as `execvp` does). Throws the error `posix_spawnp` gave.
    package static func spawn(
        _ argv: [[UInt8]], adding environment: [String: String] = [:], standardInput: Int32? = nil,
        standardOutput: Int32? = nil
    ) throws(SystemError) -> ChildProcess {
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
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let standardInput { posix_spawn_file_actions_adddup2(&actions, standardInput, 0) }
        if let standardOutput { posix_spawn_file_actions_adddup2(&actions, standardOutput, 1) }
        var pid: pid_t = 0
        let error = withDefaultSignalAttributes {
            posix_spawnp(&pid, arguments[0]!, &actions, $0, arguments, variables)
        }
        guard error == 0 else { throw SystemError(error, call: "posix_spawnp") }
        return ChildProcess(pid: pid)
    }

    /// Waits for the program to end.
    package func wait() throws(SystemError) -> ChildExit { try waitForChild(pid) }

    /// Waits for the program to end, for a caller that has SIGINT and
    /// SIGTERM blocked (a watch): either signal arriving meanwhile is sent
    /// on to the program and, once it has ended, raised again in the calling
    /// thread, so the caller stops as it would have; `signal` is that signal.
    package func waitForwardingTermination() throws(SystemError) -> (exit: ChildExit, signal: Int32?) {
        var forwarded: Int32?
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
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
            if signal == SIGINT || signal == SIGTERM {
                forwarded = signal
                kill(pid, signal)
                break
            }
        }
        let exit = try waitForChild(pid)
        if let forwarded { pthread_kill(pthread_self(), forwarded) }
        return (exit, forwarded)
    }
}
