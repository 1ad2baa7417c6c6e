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
    /// A private address the annotations name: never read or written by Swift code, so no
    /// instrumented access can come before the acquisition is announced.
    private let token: Int

    /// Creates a lock around `value`.
    package init(_ value: consuming sending Value) {
        self.mutex = Mutex(value)
        self.token = Int(bitPattern: UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1))
    }

    deinit {
        UnsafeMutableRawPointer(bitPattern: token)?.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    package borrowing func withLock<Result: ~Copyable, Failure: Error>(
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
