/// Keeps the optimizer from deleting work whose result the benchmark does not otherwise use.
enum Sink {
    @inline(never)
    static func consume<T>(_ value: T) {
        withExtendedLifetime(value) {}
    }
}
