/// Where something stands in a source file: a line (XML, text) or a byte
/// offset (binary property lists and other binary files).
public enum SourcePosition: Sendable, Hashable, CustomStringConvertible {
    case unknown
    case line(Int)
    case offset(Int)

    /// The line, when the position is one.
    public var line: Int? {
        if case .line(let n) = self { return n }
        return nil
    }

    /// A line number where 0 means "unknown" (as text readers count).
    public init(line: Int) {
        self = line > 0 ? .line(line) : .unknown
    }

    public var description: String {
        switch self {
        case .unknown: ""
        case .line(let n): "\(n)"
        case .offset(let n): "offset \(n)"
        }
    }

    /// This position in `file` as messages name it: `file:line`,
    /// `file@offset N`, or `file` alone when the position is unknown.
    public func place(in file: String) -> String {
        switch self {
        case .unknown: file
        case .line(let n): "\(file):\(n)"
        case .offset(let n): "\(file)@offset \(n)"
        }
    }
}

/// A problem found in a source (a declaration file, an app bundle, the
/// MIME database, a desktop entry or `mimeapps.list`): how serious, the
/// file, the position in it and what is wrong. Every module reports with
/// it, and a source that cannot be used at all throws it.
public struct Diagnostic: Error, Sendable, Equatable, CustomStringConvertible {
    /// A note tells what happened (an override); a warning points at a
    /// likely mistake; an error is something wrong, which was skipped.
    public enum Severity: String, Sendable, Comparable {
        case note, warning, error
        private var rank: Int { self == .note ? 0 : self == .warning ? 1 : 2 }
        public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
    }

    public var severity: Severity
    public var file: String
    public var position: SourcePosition
    public var message: String

    public init(_ severity: Severity, file: String, position: SourcePosition = .unknown, _ message: String) {
        self.severity = severity
        self.file = file
        self.position = position
        self.message = message
    }

    /// `file:line` (`file@offset N` for a byte offset, `file` alone when
    /// the position is unknown).
    public var place: String { position.place(in: file) }

    /// `file:line: severity: message`, the form compilers use (without a
    /// file, `severity: message`).
    public var description: String {
        file.isEmpty && position == .unknown
            ? "\(severity.rawValue): \(message)" : "\(place): \(severity.rawValue): \(message)"
    }

    /// This problem with what it made the reader leave out (`file`, `bundle`).
    public func skipping(_ what: String) -> Diagnostic {
        Diagnostic(severity, file: file, position: position, message + "; the \(what) is skipped")
    }
}
