import Foundation

/// The stack Apple platforms give a secondary thread (a Linux thread gets 8 MiB).
let secondaryThreadStackSize = 512 << 10

/// Runs `body` on a thread of its own with ``secondaryThreadStackSize`` bytes of stack and
/// returns its result, so recursion as deep as the input would crash here as it would in an app.
func onSecondaryThreadStack<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.stackSize = secondaryThreadStackSize
        thread.start()
    }
}
