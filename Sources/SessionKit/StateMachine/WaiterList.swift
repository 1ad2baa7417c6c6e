/// Identifies one suspended caller, so its cancellation removes only that caller.
struct WaiterID: Hashable, Sendable, Comparable {
    var raw: UInt64
    static func < (lhs: WaiterID, rhs: WaiterID) -> Bool { lhs.raw < rhs.raw }
}

/// The callers suspended in one stage, in arrival order.
///
/// Appending is O(1) (ids come from a counter, so they arrive in increasing order); removing one
/// cancelled caller is a binary search that leaves a hole; handing all of them out is one pass.
/// Resuming 100 000 callers therefore costs no sort and no hashing.
struct WaiterList<Waiter> {
    private var ids: [WaiterID] = []
    private var slots: [Waiter?] = []
    /// How many callers are still waiting.
    private(set) var count = 0

    init() {}

    init(_ id: WaiterID, _ waiter: Waiter) {
        append(id, waiter)
    }

    var isEmpty: Bool { count == 0 }

    /// Adds a caller; an id older than the newest is put in its place, so order holds regardless.
    mutating func append(_ id: WaiterID, _ waiter: Waiter) {
        if let last = ids.last, id < last {
            let index = ids.partitioningIndex { $0 >= id }
            ids.insert(id, at: index)
            slots.insert(waiter, at: index)
        } else {
            ids.append(id)
            slots.append(waiter)
        }
        count += 1
    }

    /// Adds every caller of `other` in its place; when all of them arrived after the callers here
    /// (the usual case), that is one bulk copy.
    mutating func append(contentsOf other: WaiterList) {
        guard !other.isEmpty else { return }
        if let last = ids.last, let first = other.ids.first, first < last {
            for (id, waiter) in other.entries { append(id, waiter) }
            return
        }
        ids.append(contentsOf: other.ids)
        slots.append(contentsOf: other.slots)
        count += other.count
    }

    /// Removes and returns the caller with `id`, if it is still waiting.
    mutating func remove(_ id: WaiterID) -> Waiter? {
        let index = ids.partitioningIndex { $0 >= id }
        guard index < ids.count, ids[index] == id, let waiter = slots[index] else { return nil }
        slots[index] = nil
        count -= 1
        return waiter
    }

    /// Every waiting caller, in arrival order.
    var ordered: [Waiter] {
        var result: [Waiter] = []
        result.reserveCapacity(count)
        for case let waiter? in slots { result.append(waiter) }
        return result
    }

    /// Every waiting caller with its id, in arrival order.
    var entries: [(id: WaiterID, waiter: Waiter)] {
        var result: [(id: WaiterID, waiter: Waiter)] = []
        result.reserveCapacity(count)
        for (id, slot) in zip(ids, slots) {
            if let waiter = slot { result.append((id, waiter)) }
        }
        return result
    }

    /// The ids of the waiting callers, in arrival order.
    var waitingIDs: [WaiterID] {
        // No caller left (the common case): the ids are shared, not copied.
        if count == ids.count { return ids }
        var result: [WaiterID] = []
        result.reserveCapacity(count)
        for index in ids.indices where slots[index] != nil { result.append(ids[index]) }
        return result
    }
}

extension Array {
    /// The first index whose element satisfies `predicate`, for an array partitioned by it.
    fileprivate func partitioningIndex(where predicate: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if predicate(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
