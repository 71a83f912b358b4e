import Dispatch
import Foundation

/// A program run to its end: its exit status and all it printed.
public struct ProgramRun: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    /// Runs `executable` with `arguments` in `environment` (the whole
    /// environment, not additions) and `directory`, feeding it `stdin`.
    /// Both outputs are read at once, so a program that fills one pipe
    /// while the other is read never stalls.
    public init(
        _ executable: URL, _ arguments: [String], stdin: String? = nil, environment: [String: String],
        directory: String? = nil
    ) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        let errorOutput = ErrorOutput()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            errorOutput.data = err.fileHandleForReading.readDataToEndOfFile()
        }
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        status = process.terminationStatus
        stdout = String(decoding: outData, as: UTF8.self)
        stderr = String(decoding: errorOutput.data, as: UTF8.self)
    }

    /// Standard error, filled by the reading thread before `group.wait()` returns.
    private final class ErrorOutput: @unchecked Sendable {
        var data = Data()
    }
}

/// The programs this package builds, found beside the running test bundle.
public enum BuiltProducts {
    /// The built executable `name` (`uti`, `uti-example-app`): the test
    /// bundle sits in the build folder with the products, so the first
    /// folder above it that holds `name` is theirs.
    public static func url(_ name: String) -> URL {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path) && folder.path != "/" {
            folder = folder.deletingLastPathComponent()
        }
        return folder.appendingPathComponent(name)
    }
}
