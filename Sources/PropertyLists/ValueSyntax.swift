import SystemBase

/// Text forms of scalar values in XML property lists.
enum ValueSyntax {
    /// Decimal or `0x` hexadecimal, optionally signed; nil past 64 bits.
    static func integer(_ text: String) -> Int64? {
        var s = Substring(text.trimmingWhitespace())
        var negative = false
        if s.first == "-" {
            negative = true
            s = s.dropFirst()
        } else if s.first == "+" {
            s = s.dropFirst()
        }
        var radix = 10
        if s.hasPrefix("0x") || s.hasPrefix("0X") {
            radix = 16
            s = s.dropFirst(2)
        }
        guard !s.isEmpty, let magnitude = UInt64(s, radix: radix) else { return nil }
        if negative {
            if magnitude == UInt64(Int64.max) + 1 { return Int64.min }
            guard magnitude <= UInt64(Int64.max) else { return nil }
            return -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

    static func real(_ text: String) -> Double? {
        let s = text.trimmingWhitespace()
        switch s.lowercased() {
        case "nan": return .nan
        case "inf", "+inf", "infinity", "+infinity": return .infinity
        case "-inf", "-infinity": return -.infinity
        default: return Double(s)
        }
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` as seconds since 2001-01-01T00:00:00Z.
    static func date(_ text: String) -> Double? {
        let s = Array(text.trimmingWhitespace().utf8)
        guard s.count == 20, s[4] == UInt8(ascii: "-"), s[7] == UInt8(ascii: "-"),
            s[10] == UInt8(ascii: "T"), s[13] == UInt8(ascii: ":"), s[16] == UInt8(ascii: ":"),
            s[19] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var n = 0
            for i in range {
                guard s[i] >= 48, s[i] <= 57 else { return nil }
                n = n * 10 + Int(s[i] - 48)
            }
            return n
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 61
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day) - daysFromCivil(year: 2001, month: 1, day: 1)
        return Double(days * 86_400 + hour * 3_600 + minute * 60 + second)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Standard base64; white space is ignored, anything else invalid is nil.
    static func base64(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        var padding = 0
        for c in text.utf8 {
            let v: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - 65)
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - 97 + 26)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - 48 + 52)
            case UInt8(ascii: "+"): v = 62
            case UInt8(ascii: "/"): v = 63
            case UInt8(ascii: "="):
                padding += 1
                continue
            case 9, 10, 13, 32: continue
            default: return nil
            }
            if padding > 0 { return nil }
            accumulator = (accumulator << 6) | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8((accumulator >> UInt32(bits)) & 0xFF))
            }
        }
        guard padding <= 2 else { return nil }
        return output
    }
}
