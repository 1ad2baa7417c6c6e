import CSessionKitSupport
import Synchronization

/// A `Mutex` whose hand-overs the thread sanitizer can see.
///
/// On Linux `Synchronization.Mutex` passes contended ownership through the kernel, which the
/// sanitizer does not observe, so correct code protected by it is reported as a race. `Locked`
/// tells the sanitizer about each acquisition and release (a no-op in uninstrumented builds);
/// otherwise it is exactly a `Mutex`. Every lock in the package uses it.
package struct Locked<Value: ~Copyable>: ~Copyable {
    private let mutex: Mutex<Value>

    /// Creates a lock around `value`.
    package init(_ value: consuming sending Value) {
        self.mutex = Mutex(value)
    }

    /// Runs `body` with exclusive access to the value.
    package borrowing func withLock<Result: ~Copyable, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        try mutex.withLock { (value: inout sending Value) throws(Failure) -> sending Result in
            withUnsafeMutablePointer(to: &value) { sessionkit_tsan_acquire(UnsafeMutableRawPointer($0)) }
            defer { withUnsafeMutablePointer(to: &value) { sessionkit_tsan_release(UnsafeMutableRawPointer($0)) } }
            return try body(&value)
        }
    }
}

extension Locked: Sendable where Value: ~Copyable {}
