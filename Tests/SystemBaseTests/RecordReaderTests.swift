import Foundation
import SystemBase
import Testing

/// Records read from a pipe in small blocks, so that records straddle
/// blocks and outgrow them.
@Suite struct RecordReaderTests {
    func reader(_ bytes: [UInt8], separator: UInt8 = 10, stripsCarriageReturn: Bool = false) throws -> RecordReader {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let written = bytes.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        #expect(written == bytes.count)
        close(fds[1])
        return RecordReader(fd: fds[0], separator: separator, stripsCarriageReturn: stripsCarriageReturn, blockSize: 4)
    }

    @Test func linesStraddleAndOutgrowBlocks() throws {
        let long = String(repeating: "x", count: 50)
        var input = try reader(Array("a.jpg\r\n\(long).txt\n\nlast".utf8), stripsCarriageReturn: true)
        var lines: [String] = []
        while let line = input.nextText() { lines.append(line) }
        #expect(lines == ["a.jpg", long + ".txt", "", "last"])
        #expect(input.count == 4)
        #expect(input.error == nil)
    }

    @Test func badUTF8IsToldApartOrRepaired() throws {
        var records = try reader([0x61, 0, 0x62, 0xFF, 0x63, 0, 0x64, 0x0D], separator: 0)
        #expect(records.next() == .text("a"))
        #expect(records.next() == .notUTF8(repaired: "b\u{FFFD}c", byteCount: 3))
        // Without stripping, a carriage return is part of the record.
        #expect(records.next() == .text("d\r"))
        #expect(records.next() == nil)
        var lines = try reader([0x62, 0xFF, 0x0A])
        #expect(lines.nextText() == "b\u{FFFD}")
        #expect(lines.nextText() == nil)
    }

    @Test func aReadErrorEndsTheInputAndIsKept() {
        var records = RecordReader(fd: -1)
        #expect(records.next() == nil)
        #expect(records.error == EBADF)
    }
}

/// A record past the limit is read through, reported with its length, and
/// the records after it follow; the buffer never holds more than the limit
/// and a block.
@Suite struct RecordLimitTests {
    @Test func aRecordPastTheLimitIsReportedAndSkipped() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let input =
            Array("ok\n".utf8) + [UInt8](repeating: 0x61, count: 100) + Array("\nnext\n".utf8)
            + [UInt8](repeating: 0x62, count: 33) + Array("\nexact-sixteen-by\nlast-without-end!".utf8)
        let written = input.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        #expect(written == input.count)
        close(fds[1])
        var reader = RecordReader(fd: fds[0], blockSize: 4, maximumLength: 16)
        #expect(reader.next() == .text("ok"))
        #expect(reader.next() == .tooLong(byteCount: 100))
        #expect(reader.next() == .text("next"))
        #expect(reader.next() == .tooLong(byteCount: 33))
        #expect(reader.next() == .text("exact-sixteen-by"))
        #expect(reader.next() == .tooLong(byteCount: 17))
        #expect(reader.next() == nil)
        #expect(reader.count == 6)
    }
}
