import SystemBase

// The types of this module's API that `SystemBase` defines (shared with
// `InboxProcessing`), named here so that a user of this module alone can name them.

/// When an added or changed file has settled: the inbox's rules.
public typealias SettlePolicy = SystemBase.SettlePolicy
/// What an item is: a file, a folder, a symbolic link, …
public typealias EntryKind = SystemBase.EntryKind
/// Stops a watch from any thread or task.
public typealias WatchStop = SystemBase.WatchStop
/// A glob naming paths a watch leaves out (`*.swp`, `build/`, `/cache/**`),
/// and the defaults for editors', downloads' and version control's own files.
public typealias IgnorePattern = SystemBase.IgnorePattern
