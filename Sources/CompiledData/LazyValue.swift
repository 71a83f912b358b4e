import Synchronization

/// A value computed once, on first use, by whichever thread asks first.
public final class LazyValue<Value: Sendable>: Sendable {
    private let state: Mutex<Value?>
    private let make: @Sendable () -> Value

    public init(_ make: @escaping @Sendable () -> Value) {
        self.make = make
        state = Mutex(nil)
    }

    /// A value that is already there.
    public init(_ value: Value) {
        make = { value }
        state = Mutex(value)
    }

    public var value: Value {
        state.withLock { current in
            if let current { return current }
            let made = make()
            current = made
            return made
        }
    }
}
