import Foundation
import PropertyLists
import TestSupport
import Testing
import UniformTypes

@testable import DocumentHandlers

/// The code of each problem the handler library reports, made through its
/// public calls.
@Suite struct DocumentHandlersErrorCodeTests {
    @Test(
        arguments: [
            ("https://example.com/a", OpenTarget.FileURLProblem.Code.notFileURL, "is not a file: URL"),
            ("file:a.txt", .missingPath, "a file: URL needs an absolute path (file:///PATH)"),
            ("file://localhost", .missingPath, "a file: URL needs a path after the host"),
            ("file://server/a.txt", .remoteHost, "names a file on host \"server\", not on this machine"),
            ("file:///a%2", .invalidEscape, "a \"%\" not followed by two hexadecimal digits"),
            ("file:///a%00b", .nulByte, "the path holds an encoded NUL byte (%00)"),
            ("file:///a%FF", .notUTF8, "the decoded path is not UTF-8"),
        ] as [(String, OpenTarget.FileURLProblem.Code, String)])
    func fileURLProblemsHaveTheirCode(url: String, code: OpenTarget.FileURLProblem.Code, text: String) {
        do {
            _ = try OpenTarget.localPath(fileURL: url)
            Issue.record("\(url) gave a path")
        } catch {
            #expect(error.code == code && error.description == text, "\(url): \(error)")
        }
    }

    @Test(arguments: [
        "a \"b", "a 'b", "a \\", "a %", "a %z", "", "%f", "a %f %u", "a x%F", "a x%i", "a \"\\q\"", "a \"%f\"",
    ])
    func unparseableExecValuesAreMalformed(value: String) {
        do {
            _ = try ExecCommand(value)
            Issue.record("\(value) was parsed")
        } catch {
            #expect(error.code == .malformed, "\(value): \(error)")
        }
    }

    @Test func commandsThatCannotBeMadeHaveTheirCode() throws {
        let files = try ExecCommand("viewer %F")
        do {
            _ = try files.commands(opening: [.file("/a"), .url("https://x/", scheme: URLScheme("https")!)])
            Issue.record("a URL was given to %F")
        } catch {
            #expect(error.code == .urlNotAccepted, "\(error)")
        }
        let folder = TemporaryFolder("uti-no-terminal")
        guard case .failure(let none) = ExecCommand.terminal(environment: ["PATH": folder.path]) else {
            Issue.record("a terminal was found in an empty folder")
            return
        }
        #expect(none.code == .noTerminal && none.message.contains("none was found"))
        guard case .failure(let named) = ExecCommand.terminal(environment: ["PATH": folder.path, "TERMINAL": "nope"])
        else {
            Issue.record("TERMINAL=nope was found")
            return
        }
        #expect(named.code == .noTerminal && named.message.contains("TERMINAL=nope is not a program on PATH"))
    }

    @Test func handlersThatCannotRunHaveTheirCode() throws {
        let text = "[Desktop Entry]\nType=Application\nName=Broken\nExec=broken \"\n"
        let entry = DesktopEntry(KeyFile(bytes: Array(text.utf8), path: "/x/broken.desktop"), id: "broken.desktop")
        #expect(entry.exec == nil)
        let broken = HandlerResolver.Handler(
            id: "broken.desktop", name: "Broken", source: .desktopEntry(entry), location: "/x/broken.desktop")
        guard case .failure(let none) = broken.commands(for: ["/a.png"]) else {
            Issue.record("an entry without a usable Exec gave commands")
            return
        }
        #expect(none.code == .noCommand && none.message == "the entry has no usable Exec line", "\(none)")

        let info = "<plist><dict><key>CFBundleIdentifier</key><string>com.example.x</string></dict></plist>"
        let bundle = try AppBundle(
            path: "/nowhere/X.app", infoPlistPath: "/nowhere/X.app/Contents/Info.plist",
            plist: try PropertyList.parse(Array(info.utf8)))
        let app = HandlerResolver.Handler(
            id: "com.example.x", name: "X", source: .bundle(bundle), location: "/nowhere/X.app")
        guard case .failure(let unrunnable) = app.commands(for: ["/a.png"]) else {
            Issue.record("a bundle without an executable gave commands")
            return
        }
        #expect(unrunnable.code == .notExecutable, "\(unrunnable)")
        #expect(unrunnable.message == "com.example.x cannot be run: it has no CFBundleExecutable")

        let tree = HandlerTree()
        tree.desktop("share/applications/files.desktop", name: "Files", mime: ["image/png"], exec: "/bin/true %f")
        let resolver = try tree.resolver()
        let candidates = resolver.resolve(resolver.registry.type(identifier: "public.png")!).candidates
        let files = try #require(candidates.first { $0.handler.id == "files.desktop" }?.handler)
        guard
            case .failure(let url) = files.commands(opening: [.url("https://x/", scheme: URLScheme("https")!)])
        else {
            Issue.record("%f took a URL")
            return
        }
        #expect(url.code == .urlNotAccepted && url.message.hasPrefix("files.desktop: "), "\(url)")
    }

    @Test func selectorProblemsHaveTheirCode() throws {
        let tree = HandlerTree()
        tree.desktop("share/applications/plain.desktop", name: "Plain", mime: ["image/png"])
        let resolver = try tree.resolver()
        let candidates = resolver.resolve(resolver.registry.type(identifier: "public.png")!).candidates
        try #require(candidates.count == 1)
        typealias Attempt = () throws(HandlerSelector.Problem) -> Void
        func problem(_ body: Attempt) -> HandlerSelector.Problem? {
            do {
                try body()
                return nil
            } catch {
                return error
            }
        }
        let empty: Attempt = { _ = try HandlerSelector(commandLine: "  ") }
        let unclosed: Attempt = { _ = try HandlerSelector(commandLine: "rofi \"x") }
        let missing: Attempt = {
            _ = try HandlerSelector(arguments: ["/nonexistent/selector"]).choose(among: candidates)
        }
        let unknown: Attempt = {
            _ = try HandlerSelector(arguments: ["echo", "nothing.desktop"]).choose(among: candidates)
        }
        let shared: Attempt = {
            _ = try HandlerSelector(arguments: ["sed", "-n", "1p"]).choose(among: candidates + candidates)
        }
        let cases: [(String, Attempt, HandlerSelector.Problem.Code)] = [
            ("empty", empty, .invalidCommand), ("unclosed", unclosed, .invalidCommand),
            ("missing program", missing, .cannotStart), ("unknown answer", unknown, .unknownAnswer),
            ("shared line", shared, .ambiguousAnswer),
        ]
        for (what, body, code) in cases {
            let found = problem(body)
            #expect(found?.code == code, "\(what): \(String(describing: found))")
        }
        let spawn = problem(missing)
        #expect(spawn?.systemError?.call == "posix_spawnp" && spawn?.systemError?.kind == .notFound)
        guard
            case .failure(let none) = HandlerSelector.standard(
                environment: ["PATH": "/nonexistent"], inputIsTerminal: false)
        else {
            Issue.record("a selector was found")
            return
        }
        #expect(none.code == .noSelector)
        guard
            case .failure(let configured) = HandlerSelector.standard(
                environment: ["UTI_SELECTOR": "x \""], inputIsTerminal: false)
        else {
            Issue.record("UTI_SELECTOR with an unclosed quote was used")
            return
        }
        #expect(configured.code == .invalidCommand && configured.message.hasPrefix("UTI_SELECTOR: "))
    }

    @Test func roleAndValueProblemsHaveTheirCode() {
        do {
            _ = try DefaultSettings.role("boss")
            Issue.record("boss is a role")
        } catch {
            #expect(error.code == .unknownRole && error.message == "role \"boss\": use viewer, editor, shell or all")
        }
        #expect((try? DefaultSettings.role("Viewer")) == .viewer)
        for (raw, code) in [("a\\", KeyFileValue.Problem.Code.trailingBackslash), ("a\\qb", .unknownEscape)] {
            do {
                _ = try KeyFileValue.string(raw)
                Issue.record("\(raw) was read")
            } catch {
                #expect(error.code == code, "\(raw): \(error.message)")
            }
        }
    }
}
