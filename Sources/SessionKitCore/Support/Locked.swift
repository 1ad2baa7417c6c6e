public import CSessionKitSupport
public import Synchronization

/// A `Mutex` whose hand-overs the thread sanitizer can see.
///
/// On Linux `Synchronization.Mutex` passes contended ownership through the kernel, which the
/// sanitizer does not observe, so correct code protected by it is reported as a race. `Locked`
/// tells the sanitizer about each acquisition and release (a no-op in uninstrumented builds);
/// otherwise it is exactly a `Mutex`. Every lock in the package uses it.
///
/// Public and inlinable, so a lock around another module's type costs what a `Mutex` costs there:
/// otherwise every `withLock` from `SessionKit` would be an unspecialized generic call into this
/// module (a `package` declaration is not inlined across modules, even when marked `@inlinable`).
public struct Locked<Value: ~Copyable>: ~Copyable {
    @usableFromInline let mutex: Mutex<Value>
    /// A private address the annotations name: never read or written by Swift code, so no
    /// instrumented access can come before the acquisition is announced.
    @usableFromInline let token: Int

    /// Creates a lock around `value`.
    @inlinable
    public init(_ value: consuming sending Value) {
        self.mutex = Mutex(value)
        self.token = Int(bitPattern: UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1))
    }

    deinit {
        UnsafeMutableRawPointer(bitPattern: token)?.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    public borrowing func withLock<Result: ~Copyable, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        let address = UnsafeMutableRawPointer(bitPattern: token)
        return try mutex.withLock { (value: inout sending Value) throws(Failure) -> sending Result in
            sessionkit_tsan_acquire(address)
            defer { sessionkit_tsan_release(address) }
            return try body(&value)
        }
    }
}

extension Locked: Sendable where Value: ~Copyable {}
