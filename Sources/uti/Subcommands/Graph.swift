import ArgumentParser
import UniformTypes

struct Graph: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: CommandName.graph.rawValue,
        abstract: "The conformance graph of a type as Graphviz DOT.",
        discussion: """
            By default TYPE and every type under it; with --up, TYPE and every type above
            it up to the roots (public.item, public.content). Edges point from a type to
            the type it conforms to. Render with:
              uti graph public.image | dot -Tsvg > image.svg
            """)

    @OptionGroup var registryOptions: RegistryOptions
    @OptionGroup var queryOptions: QueryOptions
    @OptionGroup var renamedMIME: RenamedMIMEFlag
    @Flag(help: "Draw TYPE's supertypes instead of its descendants.")
    var up = false
    @Argument(help: "The type (any query form).", completion: .typeNames) var type: String

    func run() throws {
        let registry = try registryOptions.load()
        let resolver = try queryOptions.resolver(registry)
        let root = up ? try resolver.argument(type, "TYPE") : try resolver.declaredArgument(type, "TYPE")
        print(Self.dot(root: root, nodes: [root] + (up ? root.orderedSupertypes : registry.descendants(of: root))))
    }

    static func dot(root: UniformType, nodes: [UniformType]) -> String {
        var members: [String: String] = [:]
        for node in nodes where members[node.identifier.lowercased()] == nil {
            members[node.identifier.lowercased()] = node.identifier
        }
        var lines = [
            "digraph \(quote(root.identifier)) {", "  rankdir=BT;", "  node [shape=box, fontname=\"Helvetica\"];",
        ]
        lines.append("  \(quote(root.identifier)) [style=bold];")
        for (node, declared) in zip(nodes, root.registry.declaredParents(of: nodes)) {
            let parents = declared.compactMap { members[$0.lowercased()] }
            if parents.isEmpty && node != root { lines.append("  \(quote(node.identifier));") }
            for parent in parents { lines.append("  \(quote(node.identifier)) -> \(quote(parent));") }
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    static func quote(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: Substring(target), omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
