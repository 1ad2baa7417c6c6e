import Synchronization

/// Keeps the optimizer from deleting work whose result the benchmark does not otherwise use: the
/// value is stored where the compiler cannot prove nobody reads it.
enum Sink {
    private static let storage = Atomic<UInt64>(0)

    static func consume(_ value: Double) {
        storage.store(value.bitPattern, ordering: .relaxed)
    }
}
