import Foundation

extension URL {
    /// This URL with `partialName` appended as its last path component,
    /// completed with `contentType`'s preferred filename extension unless
    /// `partialName` already has an extension of a type conforming to
    /// `contentType` (`"puppy.jpg"` stays as it is for `.image`, becomes
    /// `"puppy.jpg.txt"` for `.plainText`). The result is a directory URL
    /// when `contentType` conforms to `.directory`; `self` when
    /// `partialName` is empty or holds a `/`.
    public func appendingPathComponent(_ partialName: String, conformingTo contentType: UTType) -> URL {
        guard let name = Self.completedName(partialName, contentType) else { return self }
        return appendingPathComponent(name, isDirectory: contentType.conforms(to: .directory))
    }

    /// Appends `partialName`, completed as `appendingPathComponent(_:conformingTo:)`
    /// completes it; leaves the URL as it is when it cannot.
    public mutating func appendPathComponent(_ partialName: String, conformingTo contentType: UTType) {
        self = appendingPathComponent(partialName, conformingTo: contentType)
    }

    /// This URL with its last path component completed with `contentType`'s
    /// preferred filename extension, unless it already has an extension of a
    /// type conforming to `contentType`. A directory URL when `contentType`
    /// conforms to `.directory`; `self` when there is no last component.
    public func appendingPathExtension(for contentType: UTType) -> URL {
        let last = lastPathComponent
        guard !last.isEmpty, last != "/", let name = Self.completedName(last, contentType) else { return self }
        return deletingLastPathComponent().appendingPathComponent(
            name, isDirectory: contentType.conforms(to: .directory))
    }

    /// Completes the last path component as `appendingPathExtension(for:)` does.
    public mutating func appendPathExtension(for contentType: UTType) {
        self = appendingPathExtension(for: contentType)
    }

    /// `name` with `type`'s preferred extension appended where its own
    /// extension does not already name a conforming type; nil for a name
    /// that cannot be one path component.
    private static func completedName(_ name: String, _ type: UTType) -> String? {
        guard !name.isEmpty, !name.contains("/") else { return nil }
        guard let preferred = type.preferredFilenameExtension else { return name }
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            let ext = String(name[name.index(after: dot)...])
            if !ext.isEmpty,
                UTType.types(tag: ext, tagClass: .filenameExtension, conformingTo: nil).contains(where: {
                    $0.conforms(to: type)
                })
            {
                return name
            }
        }
        return name + "." + preferred
    }
}
