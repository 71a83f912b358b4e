import Foundation
import SystemBase
import TestSupport
import Testing

/// docs/uti.1 (tools/generate-manual.sh) describes the tool as it is: every
/// command and every option the parser knows has its entry.
@Suite struct ManualPageTests {
    @Test func everyCommandAndOptionIsInTheManualPage() throws {
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../docs/uti.1").standardized
        let manual = try String(contentsOf: page, encoding: .utf8)
        // ".It Fl L , -follow Ar path..." spells options as "-follow".
        let optionSpellings = Set(
            manual.split(separator: "\n").filter { $0.hasPrefix(".It Fl") }
                .flatMap { $0.split(separator: " ") }.map(String.init))
        let dump = try Run("--experimental-dump-help")
        let root = try #require(try dump.json() as? [String: Any])
        let command = try #require(root["command"] as? [String: Any])
        let subcommands = try #require(command["subcommands"] as? [[String: Any]])
        #expect(subcommands.count >= 15)
        for subcommand in subcommands {
            let name = try #require(subcommand["commandName"] as? String)
            if name == "help" { continue }
            #expect(manual.contains(".It Em \(name)\n"), "uti \(name): run tools/generate-manual.sh")
            // Hidden options (an old spelling kept to say what replaced it) have no entry.
            for argument in subcommand["arguments"] as? [[String: Any]] ?? []
            where argument["shouldDisplay"] as? Bool != false {
                for spelling in argument["names"] as? [[String: Any]] ?? [] where spelling["kind"] as? String == "long"
                {
                    let option = try #require(spelling["name"] as? String)
                    if option == "help" || option == "version" { continue }
                    #expect(
                        optionSpellings.contains("-\(option)"), "uti \(name) --\(option): run tools/generate-manual.sh")
                }
            }
        }
    }

    /// The page renders without a warning (groff's own checks, as `man`
    /// runs them), and says what README's Exit status, Environment and
    /// Files tables say.
    @Test func rendersWithoutWarningsAndHasTheReferenceSections() throws {
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../docs/uti.1").standardized.path
        let groff = ["/usr/bin/groff", "/bin/groff"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let found = try #require(groff, "groff is needed to render the manual page (Debian: groff-base)")
        let checked = try ProgramRun(
            URL(fileURLWithPath: found), ["-mandoc", "-ww", "-z", "-Tutf8", page],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(checked.status == 0 && checked.stderr.isEmpty, "\(checked.stderr)")
        let rendered = try ProgramRun(
            URL(fileURLWithPath: found), ["-mandoc", "-Tascii", "-P-cbou", page], environment: ["PATH": "/usr/bin:/bin"]
        )
        let text = rendered.stdout
        for heading in ["EXIT STATUS", "ENVIRONMENT", "FILES"] {
            #expect(text.contains("\n\(heading)\n"), "no \(heading) section: run tools/generate-manual.sh")
        }
        let environment =
            text.components(separatedBy: "\nENVIRONMENT\n").last?.components(separatedBy: "\nFILES\n").first ?? ""
        for variable in EnvironmentVariable.all {
            #expect(
                environment.contains(variable.name),
                "\(variable.name) is not in ENVIRONMENT: run tools/generate-manual.sh")
        }
        // Dynamic identifiers keep their dots (the plugin drops characters outside ASCII).
        #expect(!text.contains("dyn.a)") && !text.contains("dyn.a "), "a dyn.a... lost its ellipsis")
        #expect(text.contains("$XDG_CONFIG_HOME/mimeapps.list"))
    }
}
