import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Proves that reading a document touched nothing outside it: the corpus
/// files name `@CANARY@` (a file watched with inotify) and `@PORT@` (a local
/// TCP port listened on), and after the reader ran, the canary must not have
/// been opened and no connection may be waiting.
final class OutsideAccessGuard {
    private let temporary = TemporaryFolder("uti-hostile")
    var folder: String { temporary.path }
    let canary: String
    let port: UInt16
    private let inotify: Int32
    private let listener: Int32

    init() throws {
        canary = temporary.path + "/canary.dtd"
        try Data("<!ENTITY leaked \"LEAKED\">\nLEAKED\n".utf8).write(to: URL(fileURLWithPath: canary))

        inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotify >= 0, inotify_add_watch(inotify, canary, UInt32(IN_OPEN | IN_ACCESS)) >= 0 else {
            throw GuardError("inotify: \(String(cString: strerror(errno)))")
        }

        let listener = socket(
            AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 8) == 0
                    && getsockname(listener, pointer, &length) == 0
            }
        }
        guard listener >= 0, bound else { throw GuardError("listening socket: \(String(cString: strerror(errno)))") }
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit {
        close(inotify)
        close(listener)
    }

    /// The corpus file `name` with the canary path and port filled in.
    func document(_ name: String) throws -> [UInt8] {
        let url = try #require(
            Bundle.module.url(forResource: "Corpus/" + name, withExtension: nil), "no corpus file \(name)")
        var text = [UInt8](try Data(contentsOf: url))
        text = replacing(Array("@CANARY@".utf8), with: Array(canary.utf8), in: text)
        text = replacing(Array("@PORT@".utf8), with: Array(String(port).utf8), in: text)
        return text
    }

    /// Runs `body` on the corpus file `name` and records an issue when the
    /// canary was opened or the port was connected to meanwhile.
    func check<R>(_ name: String, _ body: ([UInt8]) throws -> R) throws -> R {
        let bytes = try document(name)
        _ = outsideAccess()
        let result = try body(bytes)
        let access = outsideAccess()
        #expect(!access.opened, "\(name): the canary file was opened while reading")
        #expect(!access.connected, "\(name): a connection was made to port \(port) while reading")
        return result
    }

    /// Whether the canary was opened or read, and whether anything connected
    /// to the port, since the last call.
    func outsideAccess() -> (opened: Bool, connected: Bool) {
        var events = [UInt8](repeating: 0, count: 4096)
        var opened = false
        while read(inotify, &events, events.count) > 0 { opened = true }
        var connected = false
        while case let connection = accept(listener, nil, nil), connection >= 0 {
            connected = true
            close(connection)
        }
        return (opened, connected)
    }

    private func replacing(_ pattern: [UInt8], with replacement: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == pattern[0], i + pattern.count <= bytes.count, Array(bytes[i..<i + pattern.count]) == pattern
            {
                out += replacement
                i += pattern.count
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }
}

struct GuardError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
