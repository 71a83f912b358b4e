import PropertyLists
import SystemBase

/// A file of defaults to set at once (`uti set-default --file`), in the
/// habit of duti's settings files: one `TYPE-OR-SCHEME APP [ROLE]` a line,
/// fields separated by spaces or tabs; blank lines and lines starting with
/// `#` are skipped.
public struct DefaultSettings: Sendable {
    /// One setting.
    public struct Line: Sendable, Equatable {
        /// A type (extension, MIME type, identifier) or a URL scheme, as written.
        public var subject: String
        /// A desktop file ID or a bundle identifier.
        public var app: String
        /// Nil for every role.
        public var role: AppBundle.Role?
        /// The line's number in the file, from 1.
        public var number: Int
    }

    /// A line that cannot be used: now a `Diagnostic` of severity `.error`.
    @available(*, deprecated, renamed: "Diagnostic")
    public typealias Problem = Diagnostic

    /// The largest file read: far more lines than anyone sets by hand.
    public static let maximumBytes = 1 << 20

    /// The settings the file makes, in its order.
    public var lines: [Line] = []
    /// Every line that cannot be used; when there is one, nothing should be applied.
    public var problems: [Diagnostic] = []

    /// Reads the file at `path`.
    public static func read(path: String) throws(FileContents.ReadError) -> DefaultSettings {
        DefaultSettings(bytes: try FileContents.read(path, limit: maximumBytes), file: path)
    }

    /// Parses `bytes`, read from `file`. Never fails: a line that cannot be used becomes one of `problems`,
    /// and a file that is not UTF-8 gives one problem and no lines.
    public init(bytes: [UInt8], file: String) {
        // A byte-order mark (editors on Windows write one) is not part of the first line.
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes[3...] : bytes[...]
        guard let text = String(validating: body, as: UTF8.self) else {
            problems.append(Diagnostic(.error, file: file, position: .line(1), "the file is not UTF-8 text"))
            return
        }
        // Lines end at each line feed, whether or not a carriage return comes first: split by
        // scalars, since "\r\n" is one Character and splitting by Characters would miss it.
        let rawLines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, scalars) in rawLines.enumerated() {
            let number = index + 1
            let raw = String(String.UnicodeScalarView(scalars))
            let fields = raw.unicodeScalars.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
                .map { String(String.UnicodeScalarView($0)) }
            guard let first = fields.first, !first.hasPrefix("#") else { continue }
            guard fields.count == 2 || fields.count == 3 else {
                problems.append(
                    Diagnostic(
                        .error, file: file, position: .line(number),
                        "expected TYPE-OR-SCHEME APP [ROLE], found \(fields.count) field\(fields.count == 1 ? "" : "s")"
                    ))
                continue
            }
            var role: AppBundle.Role?
            if fields.count == 3 {
                do { role = try Self.role(fields[2]) } catch {
                    problems.append(Diagnostic(.error, file: file, position: .line(number), error.message))
                    continue
                }
            }
            lines.append(Line(subject: fields[0], app: fields[1], role: role, number: number))
        }
    }

    /// Why a role name is refused.
    public struct RoleProblem: Error, Sendable {
        /// What kind of problem it is, for a caller to switch on.
        public enum Code: Sendable, Hashable {
            /// The name is none of `viewer`, `editor`, `shell`, `all` and `any`.
            case unknownRole
        }

        /// What kind of problem it is.
        public var code: Code
        /// What is wrong: the role as written and the names accepted.
        public var message: String
    }

    /// The role a name stands for, any case: `viewer`, `editor`, `shell`,
    /// or nil for `all` (every role).
    public static func role(_ name: String) throws(RoleProblem) -> AppBundle.Role? {
        switch name.lowercased() {
        case "all", "any": return nil
        case "viewer": return .viewer
        case "editor": return .editor
        case "shell": return .shell
        default: throw RoleProblem(code: .unknownRole, message: "role \"\(name)\": use viewer, editor, shell or all")
        }
    }
}
