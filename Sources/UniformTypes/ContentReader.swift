import SystemBase

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Bounded random-access reads of one file's bytes (or of bytes in memory),
/// counted against a byte budget.
///
/// Every byte a read returns is paid from the budget before it is read; a
/// read the budget cannot pay returns nil and spends nothing, so however a
/// file's offsets and counts are forged, a reader never reads more than its
/// budget. ``ContainerFormat`` reads a file only through one.
public struct ContentReader: Sendable {
    /// The budget a reader gets unless told otherwise: 256 KiB.
    public static let defaultBudget = 256 * 1024

    private enum Source: Sendable {
        case memory([UInt8])
        case descriptor(Int32)
    }

    private let source: Source
    private let budget: Int

    /// How many bytes the content holds.
    public let size: Int

    /// How many bytes the reads so far have cost.
    public private(set) var spent = 0

    /// A reader of `bytes` (for example the prefix of standard input read
    /// so far) with a budget of `budget` bytes.
    public init(bytes: [UInt8], budget: Int = ContentReader.defaultBudget) {
        source = .memory(bytes)
        size = bytes.count
        self.budget = max(budget, 0)
    }

    /// A reader of the open file `fileDescriptor`, taken to hold `size`
    /// bytes, with a budget of `budget` bytes. It reads with `pread`, so the
    /// descriptor's offset is left alone; it neither owns nor closes it.
    public init(fileDescriptor: Int32, size: Int, budget: Int = ContentReader.defaultBudget) {
        source = .descriptor(fileDescriptor)
        self.size = max(size, 0)
        self.budget = max(budget, 0)
    }

    /// What the budget still pays for.
    public var remaining: Int { budget - spent }

    /// Up to `count` bytes at `offset` (fewer at the end); nil when the
    /// budget cannot pay, the range is outside the content, or the read fails.
    public mutating func read(at offset: Int, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0, offset <= size else { return nil }
        let length = min(count, size - offset)
        guard length <= budget - spent else { return nil }
        spent += length
        if length == 0 { return [] }
        switch source {
        case .memory(let bytes):
            return Array(bytes[offset..<offset + length])
        case .descriptor(let fd):
            return Self.pread(fd, at: offset, count: length)
        }
    }

    /// `count` bytes at `offset` of `fd`, fewer when the file ended sooner;
    /// nil when `pread` fails.
    private static func pread(_ fd: Int32, at offset: Int, count: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        let failed = buffer.withUnsafeMutableBytes { raw -> Bool in
            while filled < count {
                let got = retryingInterrupts {
                    systemPread(fd, raw.baseAddress! + filled, count - filled, off_t(offset + filled))
                }
                if got < 0 { return true }
                if got == 0 { break }
                filled += got
            }
            return false
        }
        if failed { return nil }
        buffer.removeLast(count - filled)
        return buffer
    }
}

/// The C library's `pread`, named apart from ``ContentReader``'s own.
private func systemPread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: off_t) -> Int {
    pread(fd, buffer, count, offset)
}
