/// Checks of content for declared types that the system's magic rules do
/// not cover, written from the formats' public descriptions. A type only an
/// extension gave (no glob knows the name) stands against content that says
/// nothing only when the content could not have told: where a signature is
/// known and the content lacks it, the content's answer stands.
enum ContentSignature {
    /// Whether `data` (a file's first bytes) has the signature of
    /// `identifier`'s format, or nil when no signature is known for it.
    static func matches(_ identifier: String, _ data: UnsafeRawBufferPointer) -> Bool? {
        switch identifier.lowercased() {
        case "com.apple.macbinary-archive": macBinary(data)
        case "com.facebook.zstandard-archive": zstandard(data)
        default: nil
        }
    }

    /// The format of content no magic rule matched, where a signature here
    /// is a format's own (a Zstandard archive that starts with skippable
    /// frames); MacBinary's header is too weak to name content alone.
    static func format(of data: UnsafeRawBufferPointer) -> (mime: String, identifier: String?)? {
        zstandard(data) ? ("application/zstd", "com.facebook.zstandard-archive") : nil
    }

    /// A Zstandard frame (`28 B5 2F FD`), after any number of skippable
    /// frames (`5? 2A 4D 18` and a little-endian length) that `data` holds
    /// whole; the system's magic knows only a frame at the start.
    static func zstandard(_ data: UnsafeRawBufferPointer) -> Bool {
        var at = 0
        while at + 8 <= data.count {
            if data[at] == 0x28 && data[at + 1] == 0xB5 && data[at + 2] == 0x2F && data[at + 3] == 0xFD { return true }
            guard data[at] & 0xF0 == 0x50, data[at + 1] == 0x2A, data[at + 2] == 0x4D, data[at + 3] == 0x18 else {
                return false
            }
            let length = (0..<4).reduce(0) { $0 | Int(data[at + 4 + $1]) << (8 * $1) }
            at += 8 + length
        }
        return false
    }

    /// A MacBinary header (versions I, II and III): 128 bytes whose first
    /// and bytes 74 and 82 are zero, a file name of 1 to 63 bytes, forks of
    /// at most 2^31 - 1 bytes; then the `mBIN` signature at 102 (III), or
    /// the CRC-16 (XMODEM) of bytes 0–123 at 124 (II), or bytes 99–125 all
    /// zero (I).
    static func macBinary(_ data: UnsafeRawBufferPointer) -> Bool {
        guard data.count >= 128, data[0] == 0, (1...63).contains(data[1]), data[74] == 0, data[82] == 0,
            data[83] < 0x80, data[87] < 0x80
        else { return false }
        if data[102] == UInt8(ascii: "m") && data[103] == UInt8(ascii: "B") && data[104] == UInt8(ascii: "I")
            && data[105] == UInt8(ascii: "N")
        {
            return true
        }
        var crc: UInt16 = 0
        for byte in data[0..<124] {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        }
        if crc == UInt16(data[124]) << 8 | UInt16(data[125]) { return true }
        return data[99..<126].allSatisfy { $0 == 0 }
    }
}
