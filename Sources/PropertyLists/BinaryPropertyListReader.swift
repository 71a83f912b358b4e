/// Reads Apple's binary property list format (`bplist00`) with every count,
/// offset and reference checked against the input.
///
/// Scalars may be shared between references, as Apple's writer does for
/// strings; an array or dictionary referenced twice (which includes any
/// cycle) is an error, so a small file can never expand into a huge tree.
struct BinaryPropertyListReader {
    static let magic: [UInt8] = Array("bplist00".utf8)

    static func isBinary(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 8 && Array(bytes[0..<8]) == magic
    }

    private let bytes: [UInt8]
    private let limits: PropertyListLimits
    private let offsetSize: Int
    private let referenceSize: Int
    private let objectCount: Int
    private let topObject: Int
    private let offsetTable: Int
    private var containersSeen: Set<Int> = []
    private var visited = 0
    /// Bytes of strings and data read out so far (see `maximumExpandedBytes`).
    private var expanded = 0
    /// Strings and data already decoded, by reference, with their sizes.
    private var leaves: [Int: (PropertyList, Int)] = [:]

    init(_ bytes: [UInt8], limits: PropertyListLimits) throws(PropertyListError) {
        self.bytes = bytes
        self.limits = limits
        let trailerStart = bytes.count - 32
        guard trailerStart >= 8 else {
            throw PropertyListError(.malformed, "binary property list is too short for its trailer", at: .offset(0))
        }
        func word(_ at: Int) -> UInt64 {
            var v: UInt64 = 0
            for i in 0..<8 { v = v << 8 | UInt64(bytes[at + i]) }
            return v
        }
        offsetSize = Int(bytes[trailerStart + 6])
        referenceSize = Int(bytes[trailerStart + 7])
        let count = word(trailerStart + 8)
        let top = word(trailerStart + 16)
        let table = word(trailerStart + 24)
        let trailer = SourcePosition.offset(trailerStart)
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw PropertyListError(.malformed, "invalid offset or reference size in trailer", at: trailer)
        }
        guard count >= 1, count <= UInt64(limits.maximumObjects) else {
            throw PropertyListError(.malformed, "object count \(count) is out of range", at: trailer)
        }
        guard top < count else {
            throw PropertyListError(.malformed, "top object \(top) is past the object count \(count)", at: trailer)
        }
        guard table >= 8, table <= UInt64(trailerStart),
            count * UInt64(offsetSize) <= UInt64(trailerStart) - table
        else {
            throw PropertyListError(.malformed, "offset table lies outside the file", at: trailer)
        }
        objectCount = Int(count)
        topObject = Int(top)
        offsetTable = Int(table)
    }

    mutating func read() throws(PropertyListError) -> PropertyList {
        try object(topObject, depth: 0)
    }

    private func unsigned(at offset: Int, size: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<size { v = v << 8 | UInt64(bytes[offset + i]) }
        return v
    }

    private func offset(of reference: Int) throws(PropertyListError) -> Int {
        guard reference >= 0, reference < objectCount else {
            throw PropertyListError(.malformed, "reference \(reference) is past the object count \(objectCount)")
        }
        let value = unsigned(at: offsetTable + reference * offsetSize, size: offsetSize)
        guard value >= 8, value < UInt64(offsetTable) else {
            throw PropertyListError(
                .malformed, "object \(reference) has offset \(value) outside the object area",
                at: .offset(offsetTable + reference * offsetSize))
        }
        return Int(value)
    }

    /// Checks that `length` bytes from `start` lie before the offset table.
    private func require(_ start: Int, _ length: Int, _ what: String) throws(PropertyListError) {
        guard length >= 0, start <= offsetTable, length <= offsetTable - start else {
            throw PropertyListError(.malformed, "\(what) runs past the object area", at: .offset(start))
        }
    }

    /// The element count of a marker, reading the extended form (`0x_F`).
    private func count(marker: UInt8, at start: Int) throws(PropertyListError) -> (count: Int, dataStart: Int) {
        let nibble = Int(marker & 0x0F)
        if nibble != 0x0F { return (nibble, start + 1) }
        try require(start + 1, 1, "count")
        let intMarker = bytes[start + 1]
        guard intMarker & 0xF0 == 0x10, intMarker & 0x0F <= 3 else {
            throw PropertyListError(.malformed, "invalid extended count", at: .offset(start))
        }
        let size = 1 << Int(intMarker & 0x0F)
        try require(start + 2, size, "count")
        let value = unsigned(at: start + 2, size: size)
        guard value <= UInt64(bytes.count) else {
            throw PropertyListError(.malformed, "count \(value) exceeds the file size", at: .offset(start))
        }
        return (Int(value), start + 2 + size)
    }

    private func references(count: Int, at start: Int) throws(PropertyListError) -> [Int] {
        guard count <= (offsetTable - start) / referenceSize else {
            throw PropertyListError(.malformed, "\(count) references run past the object area", at: .offset(start))
        }
        // An 8-byte reference may not fit an Int; clamped, it fails the
        // object-count check like any other reference out of range.
        return (0..<count).map { Int(clamping: unsigned(at: start + $0 * referenceSize, size: referenceSize)) }
    }

    /// Counts `n` more bytes of strings or data read out, against the limit.
    private mutating func expand(_ n: Int, at position: SourcePosition) throws(PropertyListError) {
        expanded += n
        if expanded > limits.maximumExpandedBytes {
            throw PropertyListError(
                .limitExceeded,
                "strings and data expand past \(limits.maximumExpandedBytes) bytes (objects referenced many times)",
                at: position)
        }
    }

    private mutating func object(_ reference: Int, depth: Int) throws(PropertyListError) -> PropertyList {
        visited += 1
        if visited > limits.maximumObjects {
            throw PropertyListError(.limitExceeded, "more than \(limits.maximumObjects) object visits")
        }
        // A string or data object named again is shared, not decoded again;
        // it still counts towards the expanded size.
        if let (shared, size) = leaves[reference] {
            try expand(size, at: shared.location)
            return shared
        }
        let value = try decode(reference, depth: depth)
        switch value.value {
        case .string(let text): leaves[reference] = (value, text.utf8.count)
        case .data(let bytes): leaves[reference] = (value, bytes.count)
        default: break
        }
        return value
    }

    private mutating func decode(_ reference: Int, depth: Int) throws(PropertyListError) -> PropertyList {
        let start = try offset(of: reference)
        let position = SourcePosition.offset(start)
        let marker = bytes[start]
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return PropertyList(.bool(false), at: position)
            case 0x09: return PropertyList(.bool(true), at: position)
            default: throw PropertyListError(.unsupported, "unsupported object marker 0x\(hex(marker))", at: position)
            }
        case 0x1:
            let exponent = Int(marker & 0x0F)
            guard exponent <= 4 else { throw PropertyListError(.malformed, "invalid integer size", at: position) }
            let size = 1 << exponent
            try require(start + 1, size, "integer")
            if size == 16 {
                let high = unsigned(at: start + 1, size: 8)
                let low = unsigned(at: start + 9, size: 8)
                guard high == 0, low <= UInt64(Int64.max) else {
                    throw PropertyListError(.unsupported, "integer does not fit in 64 bits", at: position)
                }
                return PropertyList(.integer(Int64(low)), at: position)
            }
            let raw = unsigned(at: start + 1, size: size)
            // 8-byte integers are signed; shorter ones are unsigned.
            return PropertyList(.integer(size == 8 ? Int64(bitPattern: raw) : Int64(raw)), at: position)
        case 0x2:
            switch marker & 0x0F {
            case 2:
                try require(start + 1, 4, "real")
                return PropertyList(
                    .real(Double(Float(bitPattern: UInt32(unsigned(at: start + 1, size: 4))))), at: position)
            case 3:
                try require(start + 1, 8, "real")
                return PropertyList(.real(Double(bitPattern: unsigned(at: start + 1, size: 8))), at: position)
            default:
                throw PropertyListError(.malformed, "invalid real size", at: position)
            }
        case 0x3:
            guard marker == 0x33 else { throw PropertyListError(.malformed, "invalid date marker", at: position) }
            try require(start + 1, 8, "date")
            let seconds = Double(bitPattern: unsigned(at: start + 1, size: 8))
            guard seconds.isFinite else {
                throw PropertyListError(.malformed, "date is not a finite number", at: position)
            }
            return PropertyList(.date(seconds), at: position)
        case 0x4:
            let (n, data) = try count(marker: marker, at: start)
            try require(data, n, "data")
            try expand(n, at: position)
            return PropertyList(.data(Array(bytes[data..<data + n])), at: position)
        case 0x5:
            let (n, data) = try count(marker: marker, at: start)
            try require(data, n, "string")
            try expand(n, at: position)
            let slice = bytes[data..<data + n]
            guard slice.allSatisfy({ $0 < 0x80 }) else {
                throw PropertyListError(.malformed, "ASCII string holds a byte above 0x7F", at: position)
            }
            return PropertyList(.string(String(decoding: slice, as: UTF8.self)), at: position)
        case 0x6:
            let (n, data) = try count(marker: marker, at: start)
            guard n <= bytes.count / 2 else {
                throw PropertyListError(.malformed, "string length out of range", at: position)
            }
            try require(data, n * 2, "string")
            try expand(n * 2, at: position)
            var units: [UInt16] = []
            units.reserveCapacity(n)
            for i in 0..<n { units.append(UInt16(bytes[data + 2 * i]) << 8 | UInt16(bytes[data + 2 * i + 1])) }
            var result = ""
            var decoder = UTF16()
            var iterator = units.makeIterator()
            loop: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar): result.unicodeScalars.append(scalar)
                case .emptyInput: break loop
                case .error: throw PropertyListError(.malformed, "string is not valid UTF-16", at: position)
                }
            }
            return PropertyList(.string(result), at: position)
        case 0xA, 0xD:
            guard depth < limits.maximumDepth else {
                throw PropertyListError(.limitExceeded, "nesting deeper than \(limits.maximumDepth)", at: position)
            }
            guard containersSeen.insert(reference).inserted else {
                throw PropertyListError(
                    .unsupported, "container object \(reference) is referenced more than once", at: position)
            }
            let (n, data) = try count(marker: marker, at: start)
            if marker >> 4 == 0xA {
                let refs = try references(count: n, at: data)
                var items: [PropertyList] = []
                items.reserveCapacity(n)
                for r in refs { items.append(try object(r, depth: depth + 1)) }
                return PropertyList(.array(items), at: position)
            }
            guard n <= Int.max / 2 else {
                throw PropertyListError(.malformed, "dictionary size out of range", at: position)
            }
            let refs = try references(count: 2 * n, at: data)
            var entries: [PropertyList.Entry] = []
            entries.reserveCapacity(n)
            var keys: Set<String> = []
            for i in 0..<n {
                let key = try object(refs[i], depth: depth + 1)
                guard case .string(let name) = key.value else {
                    throw PropertyListError(
                        .malformed, "dictionary key is \(key.kindPhrase), not a string", at: key.location)
                }
                guard keys.insert(name).inserted else {
                    throw PropertyListError(.malformed, "duplicate key \"\(name)\" in dictionary", at: position)
                }
                entries.append(PropertyList.Entry(key: name, value: try object(refs[n + i], depth: depth + 1)))
            }
            return PropertyList(.dictionary(entries), at: position)
        default:
            throw PropertyListError(.unsupported, "unsupported object marker 0x\(hex(marker))", at: position)
        }
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
