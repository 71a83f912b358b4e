import Foundation
import TestSupport
import Testing

/// What holds for every `uti` binary a user may run: the debug build of this
/// test run and, when `UTI_RELEASE_BINARY` names one (`.ci/run` sets it to
/// the binary `tools/install.sh` installed from this checkout), the static
/// release build, which leaves ICU out (README, "Binary size").
@Suite struct ReleaseBinaryTests {
    static let releaseBinary = ProcessInfo.processInfo.environment["UTI_RELEASE_BINARY"].flatMap {
        $0.isEmpty ? nil : $0
    }

    static var binaries: [String] { [Run.binary.path] + (releaseBinary.map { [$0] } ?? []) }

    /// Each fixture declares `com.example.encoded` with this description,
    /// written in the encoding its XML declaration names.
    static let descriptions: [(encoding: String, description: String)] = [
        ("UTF-8", "Café ☃"), ("UTF-16", "Café ☃"), ("ISO-8859-1", "Café"), ("windows-1252", "Café €"),
        ("ISO-8859-15", "Café €"), ("KOI8-R", "Журнал"), ("Shift_JIS", "日本語"), ("EUC-JP", "日本語"),
        ("GB18030", "中文"), ("Big5", "中文"),
    ]

    @Test(arguments: descriptions)
    func propertyListsInOtherEncodingsRead(encoding: String, description: String) throws {
        let file = fixture("encodings/\(encoding).plist")
        for binary in Self.binaries {
            let run = try Run(
                ["encx", "--declarations", file, "--no-system"], environment: ["UTI_CACHE_DIR": ""],
                executable: binary)
            #expect(run.status == 0, "\(binary): \(run.stderr)")
            #expect(run.lines.first == "com.example.encoded  \(description)", "\(binary)")
        }
    }

    @Test func anEncodingNoConverterKnowsIsRefusedWithItsFileAndLine() throws {
        let file = fixture("encodings/x-no-such-encoding.plist")
        for binary in Self.binaries {
            let run = try Run(
                ["encx", "--declarations", file, "--no-system"], environment: ["UTI_CACHE_DIR": ""],
                executable: binary)
            #expect(run.status == 2, "\(binary)")
            #expect(run.stdout.isEmpty)
            #expect(
                run.stderr
                    == "uti: \(file):1: error: malformed property list: Unsupported encoding x-no-such-encoding\n")
            let validated = try Run(["validate", file], executable: binary)
            #expect(validated.status == 1, "\(binary)")
            #expect(validated.stdout.hasPrefix("\(file):1: error: malformed property list: Unsupported encoding"))
        }
    }

    /// README's size: the stripped static binary stays within 20 MiB and
    /// links nothing at run time.
    @Test(.enabled(if: releaseBinary != nil, "UTI_RELEASE_BINARY names no release binary"))
    func theReleaseBinaryIsSmallAndStatic() throws {
        let binary = try #require(Self.releaseBinary)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: binary)[.size] as? Int)
        #expect(size <= 20 << 20, "\(size) bytes")
        let file = try ProgramRun(URL(fileURLWithPath: "/usr/bin/file"), ["-b", binary], environment: [:])
        #expect(file.stdout.contains("statically linked"), "\(file.stdout)")
        #expect(file.stdout.contains("stripped") && !file.stdout.contains("not stripped"), "\(file.stdout)")
    }
}
