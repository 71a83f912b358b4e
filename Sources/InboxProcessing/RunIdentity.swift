import SystemBase

#if canImport(Glibc)
    import Glibc
#endif

/// Which run of the inbox processor wrote a record (`RunRecord`, whose
/// name begins with it): the machine, the process and the moment it
/// started. A process number alone is not enough: it is reused,
/// and another machine sharing Documents has its own. A run is told to have
/// ended only on the machine it ran on, when no process with its number
/// and start time runs there.
struct RunIdentity: Equatable, Sendable {
    /// The first 12 hex digits of `/etc/machine-id` (stable across boots),
    /// or `0` where there is none.
    var machine: String
    var pid: Int32
    /// The process's start, in clock ticks after boot (`/proc/PID/stat`, field 22).
    var start: UInt64

    /// This process.
    static let current = RunIdentity(machine: machineID, pid: getpid(), start: startTime(of: getpid()) ?? 0)

    /// As it stands in a name: `MACHINE-PID-START`.
    var token: String { "\(machine)-\(pid)-\(start)" }

    /// Whether the run may still be at work: it is this process, runs on
    /// another machine (which cannot be asked), or its process still runs
    /// here with the same start time.
    var mayBeRunning: Bool {
        if self == Self.current || machine != Self.current.machine { return true }
        return Self.startTime(of: pid) == start
    }

    /// Reads `MACHINE-PID-START-` at the front of `bytes` (exact digits, no
    /// sign, no leading zeros but `0` itself); the identity and what follows.
    static func parse(_ bytes: ArraySlice<UInt8>) -> (RunIdentity, ArraySlice<UInt8>)? {
        var rest = bytes
        func field(_ allowed: (UInt8) -> Bool, maximumLength: Int) -> ArraySlice<UInt8>? {
            let value = rest.prefix(while: allowed)
            guard !value.isEmpty, value.count <= maximumLength, value.count == 1 || value.first != UInt8(ascii: "0"),
                rest.dropFirst(value.count).first == UInt8(ascii: "-")
            else { return nil }
            rest = rest.dropFirst(value.count + 1)
            return value
        }
        let isHex: (UInt8) -> Bool = { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
        let isDigit: (UInt8) -> Bool = { $0 >= 48 && $0 <= 57 }
        guard let machine = field(isHex, maximumLength: 12), let pid = field(isDigit, maximumLength: 10),
            let start = field(isDigit, maximumLength: 20),
            let pidValue = Int32(String(decoding: pid, as: UTF8.self)), pidValue > 0,
            let startValue = UInt64(String(decoding: start, as: UTF8.self))
        else { return nil }
        return (RunIdentity(machine: String(decoding: machine, as: UTF8.self), pid: pidValue, start: startValue), rest)
    }

    private static let machineID: String = {
        guard let bytes = try? FileContents.read("/etc/machine-id", limit: 256) else { return "0" }
        let hex = bytes.prefix { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }.prefix(12)
        let text = String(decoding: hex.drop { $0 == UInt8(ascii: "0") }, as: UTF8.self)
        return text.isEmpty ? "0" : text
    }()

    /// Field 22 of `/proc/PID/stat`, or nil when no such process runs:
    /// none has the number, or it has ended and waits only to be reaped
    /// (state `Z` or `X`), which a run killed a moment ago does until its
    /// parent waits for it.
    static func startTime(of pid: Int32) -> UInt64? {
        guard let bytes = try? FileContents.read("/proc/\(pid)/stat", limit: 4096),
            let close = bytes.lastIndex(of: UInt8(ascii: ")"))
        else { return nil }
        // After the command's closing parenthesis: field 3 (state) onwards.
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 19, let state = fields[0].first, state != UInt8(ascii: "Z"), state != UInt8(ascii: "X")
        else { return nil }
        return UInt64(String(decoding: fields[19], as: UTF8.self))
    }
}
