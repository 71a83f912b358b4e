extension HandlerCatalog {
    /// How many IDs `applicationIDs(startingWith:limit:)` gives unless told.
    public static let applicationIDLimit = 500

    /// The application IDs `HandlerResolver.handler(_:)` accepts that start
    /// with `prefix`: the desktop file IDs whose entry can be used (an
    /// application whose program is installed, not hidden) and the app
    /// bundles' identifiers, each once, sorted by their UTF-8 bytes; the
    /// first `limit` of them. What a shell offers when an application is
    /// completed.
    public func applicationIDs(startingWith prefix: String, limit: Int = applicationIDLimit) -> [String] {
        guard limit > 0 else { return [] }
        var ids: Set<String> = []
        for (id, entries) in desktopEntries where id.hasPrefix(prefix) {
            if case .success = HandlerResolver.handler(
                id: id, entries: entries, searchPath: searchPath.programSearchPath)
            {
                ids.insert(id)
            }
        }
        for id in bundleSet.order where id.hasPrefix(prefix) { ids.insert(id) }
        return Array(ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.prefix(limit))
    }
}
