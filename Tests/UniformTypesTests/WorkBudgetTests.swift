import CompiledData
import Testing

@testable import UniformTypes

/// A sound compiled registry never comes near the work budget of an
/// answer (`WorkBudget`): every answer of every type, over the bundled
/// declarations and the machine's MIME database, spends well under it and
/// is never cut. (Damaged and forged images, which are cut, are in
/// HostileInputTests.)
@Suite struct WorkBudgetTests {
    /// The bundled declarations with the system's MIME data (XDG_DATA_DIRS
    /// pointed at /usr/share, as README's set-up has it), and without.
    static func registries() throws -> [TypeRegistry] {
        let environment = ["XDG_DATA_DIRS": "/usr/share", "HOME": "/nonexistent"]
        let system = try TypeRegistry.load(RegistrySources(environment: environment), cache: nil).registry
        return [system, TypeRegistry.bundled]
    }

    @Test func everyAnswerOfASoundImageStaysFarInsideItsBudget() throws {
        for registry in try Self.registries() {
            let size = registry.image.byteCount
            var largest = 0
            var largestAnswer = ""
            func measure(_ what: @autoclosure () -> String, _ body: (inout WorkBudget) -> Void) {
                var budget = registry.workBudget()
                body(&budget)
                #expect(!budget.ranOut, "\(what()) ran out")
                if budget.spent > largest { (largest, largestAnswer) = (budget.spent, what()) }
            }
            for type in registry.allTypes {
                let slot = type.slot!
                measure("descendants of \(type.identifier) with their tags") { budget in
                    let slots = [slot] + registry.descendantSlots(of: type, budget: &budget)
                    for s in slots { _ = registry.tagSpecification(s, budget: &budget) }
                }
                measure("the declaration of \(type.identifier)") { budget in
                    _ = registry.identifier(slot, budget: &budget)
                    _ = registry.conformsTo(slot, budget: &budget)
                    _ = registry.tagSpecification(slot, budget: &budget)
                }
            }
            // The largest answer, the tags of everything under public.item,
            // reads less than the image holds: the budget is eight times it.
            #expect(largest <= size, "\(largestAnswer): \(largest) bytes of an image of \(size)")
            _ = registry.diagnostics
            for type in registry.allTypes.prefix(64) {
                _ = registry.tagSpecification(of: type, includingDescendants: true)
                _ = type.orderedSupertypes
                _ = registry.declaredParents(of: registry.descendants(of: type))
            }
            #expect(!registry.answersWereCut)
        }
    }
}

/// What no sound image holds is noted as damage, even when the answer it
/// touches fits its budget: a "no" read from a list outside the image is
/// not a plain "no".
@Suite struct ImageDamageTests {
    @Test func aSupertypeListOutsideTheImageIsDamage() throws {
        var bytes = RegistryBuilder.bundled().compile()
        let sound = TypeRegistry(image: try ImageView(bytes, kind: RegistryImage.kind))
        let slot = try #require(sound.slot(forIdentifier: "public.jpeg"))
        let typesStart = sound.image.int(sound.image.root + RegistryImage.Root.types)
        let word = typesStart + Int(slot) * RegistryImage.recordSize + RegistryImage.Field.ancestors
        let at = ImageView.headerSize + word * 4
        withUnsafeBytes(of: UInt32(0x7FFF_FFF0).littleEndian) { bytes.replaceSubrange(at..<(at + 4), with: $0) }
        let sum = bytes.withUnsafeBytes {
            ImageHash.checksum(UnsafeRawBufferPointer(rebasing: $0[ImageView.headerSize...]))
        }
        for i in 0..<8 { bytes[ImageHeader.checksum + i] = UInt8(truncatingIfNeeded: sum >> (8 * UInt64(i))) }
        let registry = TypeRegistry(image: try ImageView(bytes, kind: RegistryImage.kind))
        let jpeg = try #require(registry.declaredType("public.jpeg"))
        #expect(!registry.answersWereCut)
        #expect(!jpeg.conforms(to: registry.declaredType("public.image")!))
        #expect(registry.answersWereCut)
        #expect(jpeg.orderedSupertypes.isEmpty)
    }
}
