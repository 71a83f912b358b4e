import ArgumentParser
import DocumentHandlers
import UniformTypes

struct Defaults: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: CommandName.defaults.rawValue,
        abstract:
            "Every type and URL scheme a mimeapps.list sets a default for, the application, and the line that sets it.",
        discussion: """
            Reads [Default Applications] of every mimeapps.list, DESKTOP-mimeapps.list and
            defaults.list (XDG config folders, then data folders), and the role groups
            set-default --role writes. One line a key: the key, its type (or URL scheme,
            or "every image/ type" for image/*), the application in effect and the file
            and line that set it. The most important list's first application that can
            run is in effect; "none usable" says why none can.

            When another key of the same type comes first (an alias such as image/x-png
            set elsewhere), a second line says what the type opens with.

            A key only uti reads, which an earlier release wrote for a wildcard or a type
            without a MIME type (image/*=, public.image=), is marked "only uti reads this
            key; set it again to write MIME type keys": set-default with the same subject
            writes the MIME types GIO and xdg-mime read and removes it.

            --all adds, under each key, the applications other lists name for it (and why
            they are passed over) and every candidate open-in would offer for its type.

            Exit status: 0 listed (an empty list included); 2 bad arguments or sources.
            """)

    @OptionGroup var registryOptions: RegistryOptions
    @OptionGroup var output: OutputOptions
    @Flag(name: .customLong("all"), help: "Also list the passed-over defaults and every candidate for each type.")
    var showAll = false

    func run() throws {
        let resolver = try registryOptions.resolverOrExit()
        let settings = resolver.defaultSettings()
        if output.json {
            print(JSON.array(settings.map { json($0, resolver: resolver) }).serialized())
            return
        }
        if settings.isEmpty { Console.error("uti: no mimeapps.list sets a default") }
        let rows = settings.map { setting in (Self.keyLabel(setting), Self.subjectLabel(setting)) }
        let keyWidth = rows.map(\.0.count).max() ?? 0
        let typeWidth = rows.map(\.1.count).max() ?? 0
        let apps = settings.map { setting in setting.current.map { "\($0.handler.id)" as TerminalText } }
        let appWidth = apps.compactMap { $0?.count }.max() ?? 0
        for ((setting, row), app) in zip(zip(settings, rows), apps) {
            var lines: [TerminalText] = []
            let head = row.0.padding(keyWidth + 1) + " " + row.1.padding(typeWidth + 1) + " "
            if let current = setting.current, let app {
                lines.append(head + app.padding(appWidth + 1) + " \(current.claim.place)")
            } else {
                let why = setting.passed.map {
                    "\($0.claim.handlerID): \(keepingBackslashes: $0.reason)" as TerminalText
                }
                lines.append(head + "none usable (\(why.joined(separator: "; ")))")
            }
            if setting.onlyUTIReads {
                lines.append("    only uti reads this key; set it again to write MIME type keys")
            }
            if let opens = setting.opensWith, opens.handler.id != setting.current?.handler.id, let type = setting.type {
                lines.append(
                    "    \(type.identifier) opens with \(opens.handler.id): \(keepingBackslashes: opens.reason)")
            }
            if showAll {
                if setting.current != nil {
                    for passed in setting.passed {
                        lines.append(
                            "    passed over: \(passed.claim.handlerID)  \(passed.claim.place): \(keepingBackslashes: passed.reason)"
                        )
                    }
                }
                for (index, candidate) in candidates(setting, resolver: resolver).enumerated() {
                    lines.append(
                        "    \(index == 0 ? "*" : " ") \(candidate.handler.id)  \(keepingBackslashes: candidate.reason)"
                    )
                }
            }
            TerminalText.print(lines.joined(separator: "\n"))
        }
    }

    static func keyLabel(_ setting: DefaultSetting) -> TerminalText {
        "\(setting.key)" + (setting.role.map { " (\($0.rawValue.lowercased()))" } ?? "")
    }

    static func subjectLabel(_ setting: DefaultSetting) -> TerminalText {
        if let scheme = setting.scheme { return "URL scheme \(scheme.name)" }
        if setting.isWildcard { return "every \(setting.key.dropLast(1).lowercased()) type" }
        return "\(setting.type?.identifier ?? "?")"
    }

    /// What open-in offers for the key's type and role, best first (none for a wildcard).
    func candidates(_ setting: DefaultSetting, resolver: HandlerResolver) -> [HandlerResolver.Candidate] {
        guard let type = setting.type else { return [] }
        let filter = setting.role.flatMap { HandlerResolver.RoleFilter(rawValue: $0.rawValue.lowercased()) } ?? .any
        return resolver.resolve(type, role: filter).candidates
    }

    func json(_ setting: DefaultSetting, resolver: HandlerResolver) -> JSON {
        func place(_ claim: AssociationClaim) -> [(String, JSON)] {
            [("file", .string(claim.file)), ("line", claim.position.line.map(JSON.int) ?? .null)]
        }
        var fields: [(String, JSON)] = [
            ("key", .string(setting.key)),
            ("role", .optional(setting.role?.rawValue)),
            ("type", .optional(setting.type?.identifier)),
            ("scheme", .optional(setting.scheme?.name)),
            ("wildcard", .bool(setting.isWildcard)),
            ("onlyUTIReads", .bool(setting.onlyUTIReads)),
            ("application", .optional(setting.current?.handler.id)),
        ]
        fields += setting.current.map { place($0.claim) } ?? [("file", .null), ("line", .null)]
        fields.append(("opensWith", .optional(setting.opensWith?.handler.id)))
        fields.append(
            (
                "passed",
                .array(
                    setting.passed.map { passed in
                        .object(
                            [("application", .string(passed.claim.handlerID))] + place(passed.claim) + [
                                ("reason", .string(passed.reason))
                            ])
                    })
            ))
        if showAll {
            fields.append(
                (
                    "candidates",
                    .array(
                        candidates(setting, resolver: resolver).map { candidate in
                            .object([
                                ("id", .string(candidate.handler.id)), ("name", .string(candidate.handler.name)),
                                ("reason", .string(candidate.reason)),
                            ])
                        })
                ))
        }
        return .object(fields)
    }
}
