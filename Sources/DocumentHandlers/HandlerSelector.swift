import CLinuxCalls
import SystemBase

#if canImport(Glibc)
    import Glibc
#endif

/// Lets the user choose among the applications that open a document by
/// running a selector program (`fzf`, `rofi -dmenu`, `dmenu`): the
/// candidates go to its standard input one a line, `ID  Name`, and the line
/// it prints is the choice. It is never run through a shell.
public struct HandlerSelector: Sendable, Equatable {
    /// Why no selector can be run, or what it answered cannot be used.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// What kind of problem it is, for a caller to switch on.
        public enum Code: Sendable, Hashable {
            /// The selector's command line cannot be parsed, or is empty.
            case invalidCommand
            /// No selector is configured, and none of those looked for is on `PATH`.
            case noSelector
            /// The selector program could not be started: `systemError` says why.
            case cannotStart
            /// Another system call failed (holding the candidates, reading
            /// the answer, waiting for the selector): `systemError` says which.
            case systemCallFailed
            /// The selector answered a line that two candidates share.
            case ambiguousAnswer
            /// The selector answered a line that is none of the candidates.
            case unknownAnswer
        }

        /// What kind of problem it is.
        public var code: Code
        /// What is wrong, for a person to read.
        public var message: String
        /// The system call that failed, with its errno, when one did.
        public var systemError: SystemError? = nil
        /// The same as `message`.
        public var description: String { message }

        /// The failure of `call` with the current errno, told as `what: REASON`.
        static func current(_ what: String, _ call: String) -> Problem {
            let error = SystemError.current(call)
            return Problem(code: .systemCallFailed, message: "\(what): \(error.reason)", systemError: error)
        }
    }

    /// What the selector did.
    public enum Choice: Sendable {
        /// The application whose line, or ID, the selector printed.
        case chosen(HandlerResolver.Handler)
        /// Nothing was chosen: the selector printed nothing, or exited
        /// non-zero (as `fzf`, `rofi` and `dmenu` do when cancelled) with
        /// this status (128 + the signal for one killed by a signal).
        case cancelled(status: Int32)
    }

    /// The program and its arguments.
    public let arguments: [String]

    /// A selector that runs `arguments`, the program first; it must not be empty.
    public init(arguments: [String]) {
        self.arguments = arguments
    }

    /// A selector written as a command line, quoted as a desktop entry's
    /// `Exec` is (`rofi -dmenu -p "Open with"`).
    public init(commandLine: String) throws(Problem) {
        let parsed: ExecCommand
        do { parsed = try ExecCommand(commandLine) } catch {
            throw Problem(code: .invalidCommand, message: "selector \"\(commandLine)\": \(error.message)")
        }
        let argv = parsed.commands(for: []).first ?? []
        guard !argv.isEmpty, !argv[0].isEmpty else {
            throw Problem(code: .invalidCommand, message: "the selector command is empty")
        }
        arguments = argv
    }

    /// The longest line written for one candidate, in characters.
    static let maximumLineLength = 200
    /// The most bytes of the selector's answer that are read.
    static let maximumAnswer = 64 << 10

    /// The selector the environment names (`UTI_SELECTOR`), else the first
    /// found on `PATH`: `fzf` when standard input is a terminal, then, on a
    /// graphical display (`WAYLAND_DISPLAY` or `DISPLAY`), `rofi -dmenu`,
    /// `wofi --dmenu`, `dmenu`.
    public static func standard(
        environment: [String: String], inputIsTerminal: Bool
    ) -> Result<HandlerSelector, Problem> {
        if let configured = EnvironmentVariable.selector.value(in: environment), !configured.isEmpty {
            do { return .success(try HandlerSelector(commandLine: configured)) } catch {
                return .failure(Problem(code: error.code, message: "UTI_SELECTOR: \(error.message)"))
            }
        }
        let searchPath = EnvironmentVariable.path.value(in: environment)
        var tried: [[String]] = []
        if inputIsTerminal { tried.append(["fzf", "--prompt", "Open with: "]) }
        let display = [environment["WAYLAND_DISPLAY"], environment["DISPLAY"]].contains { !($0 ?? "").isEmpty }
        if display {
            tried += [["rofi", "-dmenu", "-p", "Open with"], ["wofi", "--dmenu"], ["dmenu", "-p", "Open with"]]
        }
        for argv in tried where ExecCommand.locate(argv[0], searchPath: searchPath) != nil {
            return .success(HandlerSelector(arguments: argv))
        }
        let looked =
            tried.isEmpty
            ? "no terminal and no graphical display to choose in"
            : "none of " + tried.map { $0[0] }.joined(separator: ", ") + " is on PATH"
        return .failure(
            Problem(
                code: .noSelector,
                message: "no selector to choose with (\(looked)); set UTI_SELECTOR or give --selector"))
    }

    /// The line each candidate is offered as: `ID  Name`, control
    /// characters shown as `?`, cut at `maximumLineLength`.
    public static func lines(for candidates: [HandlerResolver.Candidate]) -> [String] {
        candidates.map { candidate in
            let text =
                candidate.handler.id == candidate.handler.name
                ? candidate.handler.id
                : candidate.handler.id + "  " + candidate.handler.name
            var scalars = String.UnicodeScalarView()
            for scalar in text.unicodeScalars.prefix(maximumLineLength) {
                scalars.append(scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) ? "?" : scalar)
            }
            return String(scalars)
        }
    }

    /// Runs the selector with `candidates` and waits for it to exit: it is
    /// interactive, so this blocks until the user chooses or cancels. It
    /// runs in the caller's process group, so an interrupt from the
    /// terminal reaches it too. Nothing process-wide is changed.
    public func choose(among candidates: [HandlerResolver.Candidate]) throws(Problem) -> Choice {
        let lines = Self.lines(for: candidates)
        let program = arguments[0]
        // The candidates are in a file in memory: writing them never blocks
        // on, or is cut off by (SIGPIPE), a selector that stops reading.
        let input = uti_memory_file("uti-candidates")
        guard input >= 0 else { throw .current("cannot hold the candidates", "memfd_create") }
        defer { close(input) }
        do {
            try writeAll(input, Array((lines.joined(separator: "\n") + "\n").utf8))
        } catch {
            throw Problem(
                code: .systemCallFailed, message: "cannot hold the candidates: \(error.reason)", systemError: error)
        }
        lseek(input, 0, SEEK_SET)
        var pipeEnds: [Int32] = [-1, -1]
        guard uti_pipe_cloexec(&pipeEnds) == 0 else {
            throw .current("cannot read the selector", "pipe2")
        }
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(
                arguments.map { Array($0.utf8) }, standardInput: input, standardOutput: pipeEnds[1])
        } catch {
            close(pipeEnds[1])
            close(pipeEnds[0])
            throw Problem(
                code: .cannotStart, message: "selector \(program): cannot start: \(error.reason)", systemError: error)
        }
        close(pipeEnds[1])
        // Read to the end (so the selector never blocks writing), keep the start.
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var stoppedReading = false
        while true {
            let n = retryingInterrupts { buffer.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress, $0.count) } }
            if n <= 0 { break }
            if answer.count < Self.maximumAnswer { answer += buffer[..<min(n, Self.maximumAnswer - answer.count)] }
            // The first line is the answer: a selector that goes on printing is not read for ever.
            if answer.contains(10) || answer.count >= Self.maximumAnswer {
                stoppedReading = true
                break
            }
        }
        close(pipeEnds[0])
        let ended: ChildExit
        do { ended = try child.wait() } catch {
            throw Problem(code: .systemCallFailed, message: "selector \(program): \(error.reason)", systemError: error)
        }
        let exitStatus = ended.shellStatus
        // A selector still printing when its answer was read ends by SIGPIPE; its answer stands.
        let answered = stoppedReading && ended.signal == SIGPIPE
        if exitStatus != 0 && !answered { return .cancelled(status: exitStatus) }
        var first = answer.prefix { $0 != 10 }
        if first.last == 13 { first = first.dropLast() }
        guard !first.isEmpty else { return .cancelled(status: 0) }
        let chosen = String(decoding: first, as: UTF8.self)
        if lines.filter({ $0 == chosen }).count > 1 {
            throw Problem(
                code: .ambiguousAnswer,
                message: "selector \(program) answered a line two candidates share; answer with the ID alone")
        }
        if let index = lines.firstIndex(of: chosen) ?? candidates.firstIndex(where: { $0.handler.id == chosen })
            ?? lines.firstIndex(of: String(chosen.trimmingSpaces))
        {
            return .chosen(candidates[index].handler)
        }
        throw Problem(
            code: .unknownAnswer,
            message:
                "selector \(program) answered \"\(String(chosen.prefix(Self.maximumLineLength)))\", which is none of the candidates"
        )
    }
}
