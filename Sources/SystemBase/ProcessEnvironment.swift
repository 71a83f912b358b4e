#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process environment as a dictionary, read without Foundation.
public enum ProcessEnvironment {
    /// The environment as it was at first use, read once: every default
    /// argument that takes it then shares one dictionary. A program that
    /// changes its environment later passes the variables it wants
    /// (`RegistrySources(environment:)` and the like).
    public static let current: [String: String] = read()

    /// The environment as it is now.
    public static func read() -> [String: String] {
        var count = 0
        while environ[count] != nil { count += 1 }
        var result: [String: String] = [:]
        result.reserveCapacity(count)
        var pointer = environ
        while let entry = pointer.pointee {
            // Bytes, not Characters: "=" is found without grapheme breaking.
            let text = String(cString: entry)
            if let eq = text.utf8.firstIndex(of: UInt8(ascii: "=")) {
                result[String(text[..<eq])] = String(text[text.utf8.index(after: eq)...])
            }
            pointer += 1
        }
        return result
    }
}
