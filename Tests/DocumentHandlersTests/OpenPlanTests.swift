import DocumentHandlers
import Testing
import UniformTypes

/// What `open-in` decides before it starts anything, asked of the library.
@Suite struct OpenPlanTests {
    func subjects(_ registry: TypeRegistry) -> [OpenPlan.Subject] {
        let text = registry.type(identifier: "public.plain-text")!
        return [
            OpenPlan.Subject(label: "a.txt", target: .file("/tmp/a.txt"), type: text),
            OpenPlan.Subject(label: "b.txt", target: .file("/tmp/b.txt"), type: text),
            OpenPlan.Subject(label: "gone.txt", target: .file("/tmp/gone.txt"), type: text, missing: true),
            OpenPlan.Subject(label: "text", type: text),
        ]
    }

    @Test func eachApplicationIsLaunchedOnceWithEveryTargetItOpens() throws {
        let tree = HandlerTree()
        tree.desktop("share/applications/edit.desktop", name: "Edit", mime: ["text/plain"], exec: "/bin/true %F")
        tree.desktop("share/applications/view.desktop", name: "View", mime: ["text/plain"])
        let resolver = try tree.resolver()
        let plan = try OpenPlan(subjects(resolver.registry), resolver: resolver, role: .any, launching: true)
        #expect(plan.entries.count == 4 && !plan.hasUnopened)
        let defaultID = try #require(plan.entries[0].resolution.defaultCandidate?.handler.id)
        #expect(plan.entries.allSatisfy { $0.handler?.id == defaultID && $0.note == nil })
        // The missing file and the type asked about are not launched.
        #expect(plan.launches.map(\.handler.id) == [defaultID])
        #expect(plan.launches.first?.targets == [.file("/tmp/a.txt"), .file("/tmp/b.txt")])
        let asked = try OpenPlan(subjects(resolver.registry), resolver: resolver, role: .any, launching: false)
        #expect(asked.launches.isEmpty)
    }

    @Test func anApplicationGivenOrChosenIsUsedAndNothingChosenIsUnopened() throws {
        let tree = HandlerTree()
        tree.desktop("share/applications/edit.desktop", name: "Edit", mime: ["text/plain"])
        tree.desktop("share/applications/view.desktop", name: "View", mime: ["text/plain"])
        let resolver = try tree.resolver()
        let view = try resolver.handler("view.desktop").get()
        let given = try OpenPlan(
            subjects(resolver.registry), resolver: resolver, role: .any, application: view, launching: true)
        #expect(given.entries.allSatisfy { $0.handler?.id == "view.desktop" && $0.note == "--app" })
        var asked: [String] = []
        let cancelled = try OpenPlan(
            subjects(resolver.registry), resolver: resolver, role: .any, launching: true,
            choose: { subject, candidates in
                asked.append(subject.label)
                #expect(candidates.count == 2)
                return .cancelled(status: 130)
            })
        // A missing file is never asked about.
        #expect(asked == ["a.txt", "b.txt", "text"])
        #expect(cancelled.hasUnopened && cancelled.launches.isEmpty)
        #expect(cancelled.entries[0].handler == nil && cancelled.entries[0].cancelledWithStatus == 130)
        let chosen = try OpenPlan(
            subjects(resolver.registry), resolver: resolver, role: .any, launching: true,
            choose: { _, _ in .chosen(view) })
        #expect(chosen.entries[0].note == "chosen" && chosen.launches.map(\.handler.id) == ["view.desktop"])
    }

    /// `Terminal=true`: run as it is in the caller's terminal, else in the emulator the environment gives.
    @Test func aTerminalEntryRunsInTheCallersTerminalOrAnEmulator() throws {
        let tree = HandlerTree()
        tree.desktop(
            "share/applications/vim.desktop", name: "Vim", mime: ["text/plain"], extra: "Terminal=true",
            exec: "/bin/true %f")
        let resolver = try tree.resolver()
        let plan = try OpenPlan(
            subjects(resolver.registry), resolver: resolver, role: .any, launching: true, callerIsOnTerminal: true)
        #expect(plan.entries[0].command == [["/bin/true", "/tmp/a.txt"]])
        #expect(
            try plan.commands(callerIsOnTerminal: true, environment: ["PATH": "/nonexistent"]).get() == [
                OpenPlan.Command(arguments: ["/bin/true", "/tmp/a.txt"], inCallersTerminal: true),
                OpenPlan.Command(arguments: ["/bin/true", "/tmp/b.txt"], inCallersTerminal: true),
            ])
        let emulator = try plan.commands(
            callerIsOnTerminal: false, environment: ["PATH": "/nonexistent", "TERMINAL": "/bin/true"]
        ).get()
        #expect(emulator.first == OpenPlan.Command(arguments: ["/bin/true", "-e", "/bin/true", "/tmp/a.txt"]))
        #expect(throws: (any Error).self) {
            try plan.commands(callerIsOnTerminal: false, environment: ["PATH": "/nonexistent"]).get()
        }
    }

    /// A path's `.` and `..` go by its text, as GIO's
    /// `g_file_new_for_commandline_arg` reads an argument: no link is followed.
    @Test func commandLinePathsAreNormalizedByTheirText() throws {
        for (argument, path) in [
            ("../w/./notes.md", "/abs/w/notes.md"), ("./a//b/", "/abs/w/a/b"), ("/x/../../y", "/y"),
            ("/a/./b/..", "/a"), ("//srv/a", "//srv/a"), ("///a", "/a"), ("file:///a/b/../c", "/a/c"),
            ("..", "/abs"),
        ] {
            #expect(try OpenTarget.commandLineArgument(argument, directory: "/abs/w") == .file(path), "\(argument)")
        }
        #expect(try OpenTarget.commandLineArgument("a", directory: "/") == .file("/a"))
    }

    /// Of the catalog's problems, an entry is told those of the files of
    /// the applications considered for it, not the others.
    @Test func anEntryIsToldOnlyTheProblemsOfItsApplications() throws {
        let tree = HandlerTree()
        tree.desktop("share/applications/edit.desktop", name: "Edit", mime: ["text/plain"])
        tree.desktop("share/applications/bad.desktop", name: "Bad", mime: ["image/png"], exec: "sh -c \"x %f\"")
        let resolver = try tree.resolver()
        #expect(resolver.catalog.diagnostics.contains { $0.file.hasSuffix("/bad.desktop") })
        let png = try #require(resolver.registry.type(identifier: "public.png"))
        let plan = try OpenPlan(
            subjects(resolver.registry) + [OpenPlan.Subject(label: "b.png", target: .file("/tmp/b.png"), type: png)],
            resolver: resolver, role: .any, launching: true)
        #expect(
            plan.entries[0].handler?.id == "edit.desktop" && plan.entries[0].diagnostics(in: resolver.catalog) == [])
        let unopened = try #require(plan.entries.last)
        #expect(unopened.handler == nil && unopened.resolution.excluded.map(\.id) == ["bad.desktop"])
        let told = unopened.diagnostics(in: resolver.catalog)
        #expect(!told.isEmpty && told.allSatisfy { $0.file.hasSuffix("/bad.desktop") }, "\(told)")
    }
}
