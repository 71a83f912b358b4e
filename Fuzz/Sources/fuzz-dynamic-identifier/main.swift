import FuzzDriver
import FuzzExercises
import UniformTypes

// dyn.a identifiers: arbitrary text decoded, and every tag encoded and
// decoded back to itself.
fuzz { input in
    let text = String(decoding: input, as: UTF8.self)
    _ = DynamicIdentifier.decode(text)
    _ = DynamicIdentifier.decode(DynamicIdentifier.prefix + text)
    let made = DynamicIdentifier.make(tag: text, tagClass: .filenameExtension, conformingTo: "public.data")
    guard let contents = DynamicIdentifier.decode(made),
        contents.tags == [TagSpecification(.filenameExtension, [text])],
        contents.conformsTo == ["public.data"]
    else {
        fatalError("\(made) does not decode back to the extension \(text.debugDescription)")
    }
}
