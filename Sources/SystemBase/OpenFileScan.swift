import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The regular files processes have open for writing, found through
/// `/proc/PID/fd` and `/proc/PID/fdinfo`: how the writer check tells, for a
/// file whose read lease the kernel refuses (another user's file, or a file
/// system without leases), whether a writer is still at work.
package struct OpenFileScan: Sendable {
    package struct Identity: Hashable, Sendable {
        package var device: UInt64
        package var inode: UInt64

        package init(device: UInt64, inode: UInt64) {
            self.device = device
            self.inode = inode
        }
    }

    /// Files open for writing (write-only or read-write) by the processes seen.
    package var writers: Set<Identity> = []
    /// False when some process's descriptors could not be read (another
    /// user's, without the right to look): a file missing from `writers`
    /// may then still be open for writing.
    package var complete = true

    /// Reads every process of `/proc`.
    package static func scan(procRoot: String = "/proc") -> OpenFileScan {
        var result = OpenFileScan()
        guard let processes = try? FolderDescriptor.open(procRoot).names() else {
            result.complete = false
            return result
        }
        for pid in processes where !pid.bytes.isEmpty && pid.bytes.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
            let fdPath = "\(procRoot)/\(pid.escaped)/fd"
            let descriptors: [FileName]
            do { descriptors = try FolderDescriptor.open(fdPath).names() } catch {
                // A process that ended meanwhile hides nothing.
                if error.code != ENOENT { result.complete = false }
                continue
            }
            for fd in descriptors {
                var info = stat()
                guard stat(fdPath + "/" + fd.escaped, &info) == 0, info.isRegularFile,
                    let flags = openFlags("\(procRoot)/\(pid.escaped)/fdinfo/\(fd.escaped)"),
                    flags & O_ACCMODE != O_RDONLY
                else { continue }
                result.writers.insert(Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)))
            }
        }
        return result
    }

    /// The `flags:` line of an fdinfo file (octal), nil when unreadable.
    private static func openFlags(_ path: String) -> Int32? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        for line in buffer[0..<n].split(separator: 10) where line.starts(with: Array("flags:".utf8)) {
            var value: Int32 = 0
            for byte in line.dropFirst(6) where byte >= 48 && byte <= 55 { value = value &* 8 &+ Int32(byte - 48) }
            return value
        }
        return nil
    }

    /// One scan shared by checks less than 0.1 s apart (a window of the same
    /// order as the one between a lease check and the move), made again after.
    package static func recent() -> OpenFileScan {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let seconds = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        return latest.withLock { cached in
            if let (taken, scan) = cached, seconds - taken < 0.1 { return scan }
            let scan = OpenFileScan.scan()
            cached = (seconds, scan)
            return scan
        }
    }

    private static let latest = Mutex<(Double, OpenFileScan)?>(nil)
}
