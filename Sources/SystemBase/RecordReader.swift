#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The records of a file descriptor, split at a separator byte (a line
/// feed, or NUL as `find -print0` writes), read in large blocks. A last
/// record without a separator is a record too. Reading stops at the end of
/// the input or at a read error (`error` says which). Work is linear in the
/// input however it arrives (a pipe gives 64 KiB at a time), and a record
/// longer than `maximumLength` is not kept: it is read through to its
/// separator and reported as too long, and the records after it follow.
public struct RecordReader {
    /// One record: its text, or, when its bytes are not UTF-8, the text
    /// with each bad sequence replaced by U+FFFD and how long it was.
    public enum Record: Sendable, Equatable {
        case text(String)
        case notUTF8(repaired: String, byteCount: Int)
        /// A record longer than `maximumLength`, not kept.
        case tooLong(byteCount: Int)
    }

    /// One record as bytes, or a record longer than `maximumLength`.
    public enum Bytes: Sendable, Equatable {
        case bytes(ArraySlice<UInt8>)
        case tooLong(byteCount: Int)
    }

    /// The longest record kept by default, in bytes (1 MiB): far beyond a
    /// path (4,096 bytes on Linux) or a query.
    public static let defaultMaximumLength = 1 << 20

    private let fd: Int32
    private let separator: UInt8
    private let stripsCarriageReturn: Bool
    /// Records longer than this many bytes are not kept.
    public let maximumLength: Int
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    /// Where the search for the next separator goes on: the bytes from
    /// `start` up to here hold none.
    private var scanned = 0
    /// Bytes of a record past `maximumLength` thrown away so far.
    private var discarded = 0
    private var finished = false
    /// How many records have been returned.
    public private(set) var count = 0
    /// The errno of a failed read, if one ended the input.
    public private(set) var error: Int32?

    /// With `stripsCarriageReturn`, a carriage return before the separator
    /// is dropped too (as `readLine` does for lines ending in CR LF).
    public init(
        fd: Int32, separator: UInt8 = 10, stripsCarriageReturn: Bool = false, blockSize: Int = 1 << 16,
        maximumLength: Int = RecordReader.defaultMaximumLength
    ) {
        self.fd = fd
        self.separator = separator
        self.stripsCarriageReturn = stripsCarriageReturn
        self.maximumLength = max(maximumLength, 1)
        buffer = [UInt8](repeating: 0, count: max(blockSize, 1))
    }

    /// The next record, or nil at the end.
    public mutating func next() -> Record? {
        switch nextBytes() {
        case nil: return nil
        case .tooLong(let count)?: return .tooLong(byteCount: count)
        case .bytes(let bytes)?:
            if let text = String(validating: bytes, as: UTF8.self) { return .text(text) }
            return .notUTF8(repaired: String(decoding: bytes, as: UTF8.self), byteCount: bytes.count)
        }
    }

    /// The next record as text, bad UTF-8 repaired (what `readLine`
    /// gives; a record too long is empty), or nil at the end.
    public mutating func nextText() -> String? {
        switch nextBytes() {
        case nil: return nil
        case .tooLong?: return ""
        case .bytes(let bytes)?: return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// The bytes of the next record, without its separator (and carriage
    /// return), as they were read (a path need not be UTF-8), or how long
    /// a record past `maximumLength` was.
    public mutating func nextBytes() -> Bytes? {
        while true {
            if let at = buffer[scanned..<end].firstIndex(of: separator) {
                let length = discarded + at - start
                defer {
                    start = at + 1
                    scanned = start
                    discarded = 0
                }
                count += 1
                if length > maximumLength { return .tooLong(byteCount: length) }
                return .bytes(record(start..<at))
            }
            scanned = end
            if finished {
                guard start < end || discarded > 0 else { return nil }
                let length = discarded + end - start
                defer {
                    start = end
                    scanned = end
                    discarded = 0
                }
                count += 1
                if length > maximumLength { return .tooLong(byteCount: length) }
                return .bytes(record(start..<end))
            }
            // A record past the limit is not kept: its bytes are counted and dropped.
            if end - start > maximumLength {
                discarded += end - start
                start = end
                scanned = end
            }
            fill()
        }
    }

    private func record(_ range: Range<Int>) -> ArraySlice<UInt8> {
        if stripsCarriageReturn && !range.isEmpty && buffer[range.upperBound - 1] == 13 {
            return buffer[range.lowerBound..<(range.upperBound - 1)]
        }
        return buffer[range]
    }

    /// Moves the unread bytes to the front, grows the buffer when one
    /// record fills it, and reads another block.
    private mutating func fill() {
        if start > 0 {
            buffer.replaceSubrange(0..<(end - start), with: buffer[start..<end])
            end -= start
            scanned -= start
            start = 0
        }
        if end == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
        let n = retryingInterrupts { buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + end, $0.count - end) } }
        if n > 0 {
            end += n
            return
        }
        if n < 0 { error = errno }
        finished = true
    }
}
