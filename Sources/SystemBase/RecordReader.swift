#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The records of a file descriptor, split at a separator byte (a line
/// feed, or NUL as `find -print0` writes), read in large blocks. A last
/// record without a separator is a record too. Reading stops at the end of
/// the input or at a read error (`error` says which).
public struct RecordReader {
    /// One record: its text, or, when its bytes are not UTF-8, the text
    /// with each bad sequence replaced by U+FFFD and how long it was.
    public enum Record: Sendable, Equatable {
        case text(String)
        case notUTF8(repaired: String, byteCount: Int)
    }

    private let fd: Int32
    private let separator: UInt8
    private let stripsCarriageReturn: Bool
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var finished = false
    /// How many records have been returned.
    public private(set) var count = 0
    /// The errno of a failed read, if one ended the input.
    public private(set) var error: Int32?

    /// With `stripsCarriageReturn`, a carriage return before the separator
    /// is dropped too (as `readLine` does for lines ending in CR LF).
    public init(fd: Int32, separator: UInt8 = 10, stripsCarriageReturn: Bool = false, blockSize: Int = 1 << 16) {
        self.fd = fd
        self.separator = separator
        self.stripsCarriageReturn = stripsCarriageReturn
        buffer = [UInt8](repeating: 0, count: max(blockSize, 1))
    }

    /// The next record, or nil at the end.
    public mutating func next() -> Record? {
        guard let bytes = nextBytes() else { return nil }
        if let text = String(validating: bytes, as: UTF8.self) { return .text(text) }
        return .notUTF8(repaired: String(decoding: bytes, as: UTF8.self), byteCount: bytes.count)
    }

    /// The next record as text, bad UTF-8 repaired (what `readLine`
    /// gives), or nil at the end.
    public mutating func nextText() -> String? {
        nextBytes().map { String(decoding: $0, as: UTF8.self) }
    }

    /// The bytes of the next record, without its separator (and carriage
    /// return), as they were read: a path need not be UTF-8.
    public mutating func nextBytes() -> ArraySlice<UInt8>? {
        while true {
            var range: Range<Int>?
            if let at = buffer[start..<end].firstIndex(of: separator) {
                range = start..<at
                start = at + 1
            } else if finished {
                guard start < end else { return nil }
                range = start..<end
                start = end
            }
            if var range {
                count += 1
                if stripsCarriageReturn && !range.isEmpty && buffer[range.upperBound - 1] == 13 {
                    range = range.lowerBound..<(range.upperBound - 1)
                }
                return buffer[range]
            }
            fill()
        }
    }

    /// Moves the unread bytes to the front, grows the buffer when one
    /// record fills it, and reads another block.
    private mutating func fill() {
        if start > 0 {
            buffer.replaceSubrange(0..<(end - start), with: buffer[start..<end])
            end -= start
            start = 0
        }
        if end == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + end, $0.count - end) }
        if n > 0 { end += n; return }
        if n < 0 && errno == EINTR { return }
        if n < 0 { error = errno }
        finished = true
    }
}
