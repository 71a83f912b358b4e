import PropertyLists

/// Collects declarations from sources in order of increasing precedence,
/// merges them, checks them and builds an immutable `TypeRegistry`.
///
/// Merging: for one identifier (compared case-insensitively) an exported
/// declaration beats an imported one; between two of the same kind the later
/// source wins (user files override bundled ones). The winner takes the
/// place of the first declaration of that identifier in declaration order.
public struct RegistryBuilder {
    private var declarations: [TypeDeclaration] = []
    private var diagnostics: [Diagnostic] = []

    public init() {}

    /// A builder holding the bundled declarations.
    public static func bundled() -> RegistryBuilder {
        var builder = RegistryBuilder()
        builder.add(BundledDeclarations.all)
        return builder
    }

    public mutating func add(_ declarations: [TypeDeclaration]) {
        self.declarations.append(contentsOf: declarations)
    }

    /// Adds what a reader found, with its diagnostics.
    public mutating func add(_ reader: DeclarationReader) {
        declarations.append(contentsOf: reader.declarations)
        diagnostics.append(contentsOf: reader.diagnostics)
    }

    public func build() -> TypeRegistry {
        var diagnostics = self.diagnostics
        func report(_ severity: Diagnostic.Severity, _ origin: DeclarationOrigin, _ message: String) {
            diagnostics.append(Diagnostic(severity, file: origin.file, position: origin.position, message))
        }

        // 1. Merge declarations of the same identifier.
        var slotOf: [String: Int] = [:]
        var winners: [TypeDeclaration] = []
        var shadowed: [[DeclarationOrigin]] = []
        for declaration in declarations {
            let key = declaration.identifier.lowercased()
            guard let slot = slotOf[key] else {
                slotOf[key] = winners.count
                winners.append(declaration)
                shadowed.append([])
                continue
            }
            let current = winners[slot]
            let sameFile = current.origin.file == declaration.origin.file
            if sameFile && current.kind == declaration.kind {
                report(.warning, declaration.origin, "duplicate declaration of \(declaration.identifier) (first at \(current.origin)); this one wins")
            } else if sameFile {
                report(.warning, declaration.origin, "\(declaration.identifier) is both exported and imported (other at \(current.origin)); the exported one wins")
            }
            if declaration.kind == .imported && current.kind == .exported {
                shadowed[slot].append(declaration.origin)
                if !sameFile {
                    report(.note, declaration.origin, "imported \(declaration.identifier) is ignored: exported at \(current.origin)")
                }
                continue
            }
            if !sameFile {
                report(.note, declaration.origin, "\(declaration.identifier) overrides the \(current.kind.rawValue) declaration at \(current.origin)")
            }
            shadowed[slot].append(current.origin)
            winners[slot] = declaration
        }

        // 2. Resolve parents.
        var parents: [[Int32]] = []
        parents.reserveCapacity(winners.count)
        for declaration in winners {
            var resolved: [Int32] = []
            for parent in declaration.conformsTo {
                if let index = slotOf[parent.lowercased()] {
                    if !resolved.contains(Int32(index)) { resolved.append(Int32(index)) }
                } else {
                    report(.warning, declaration.origin, "\(declaration.identifier) conforms to \(parent), which no source declares")
                }
            }
            parents.append(resolved)
        }

        // 3. Ancestors, breadth first, nearest first; a type that reaches
        //    itself is on a cycle.
        var ancestors: [[Int32]] = []
        ancestors.reserveCapacity(winners.count)
        var onCycle = [Bool](repeating: false, count: winners.count)
        var seen = [Int](repeating: -1, count: winners.count)
        for index in winners.indices {
            var order: [Int32] = []
            var queue = parents[index]
            var head = 0
            seen[index] = index
            while head < queue.count {
                let next = Int(queue[head]); head += 1
                if next == index { onCycle[index] = true; continue }
                if seen[next] == index { continue }
                seen[next] = index
                order.append(Int32(next))
                queue.append(contentsOf: parents[next])
            }
            ancestors.append(order)
        }
        var reported = [Bool](repeating: false, count: winners.count)
        for index in winners.indices where onCycle[index] && !reported[index] {
            let members = [index] + ancestors[index].map(Int.init).filter {
                onCycle[$0] && ancestors[$0].contains(Int32(index))
            }
            for m in members { reported[m] = true }
            let names = members.map { winners[$0].identifier }
            report(.error, winners[index].origin, "conformance cycle: \((names + [names[0]]).joined(separator: " -> "))")
        }

        return TypeRegistry(declarations: winners, slotOf: slotOf, parents: parents, ancestors: ancestors,
                            shadowed: shadowed, diagnostics: diagnostics)
    }
}
