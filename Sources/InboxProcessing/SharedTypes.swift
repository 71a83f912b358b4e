import SystemBase

// The file-system and concurrency types this module's API uses, defined in
// `SystemBase` (which `FolderWatching` shares) and named here as before.

/// A name in a folder as the file system holds it: bytes, which need not be UTF-8.
public typealias FileName = SystemBase.FileName
/// A name cut into the part a counter follows and its extension.
public typealias NumberedName = SystemBase.NumberedName
/// When an item has finished arriving.
public typealias SettlePolicy = SystemBase.SettlePolicy
/// Hands events from one producer to a consumer on a thread of its own, in order.
public typealias OrderedRelay<Event: Sendable> = SystemBase.OrderedRelay<Event>
/// A value made on another thread while the caller goes on.
public typealias BackgroundValue<Value: Sendable, Failure: Error> = SystemBase.BackgroundValue<Value, Failure>
/// A glob naming entries the Inbox leaves in place, and the defaults for
/// editors', downloads' and version control's own files.
public typealias IgnorePattern = SystemBase.IgnorePattern
