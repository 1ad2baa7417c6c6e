import Testing

@testable import SessionKit

@Suite struct WaiterListTests {
    private static func list(_ ids: [UInt64]) -> WaiterList<UInt64> {
        var list = WaiterList<UInt64>()
        for id in ids { list.append(WaiterID(raw: id), id) }
        return list
    }

    @Test func callersComeOutInArrivalOrderWhateverOrderTheyWereAdded() {
        let list = Self.list([3, 1, 2, 5, 4])
        #expect(list.ordered == [1, 2, 3, 4, 5])
        #expect(list.waitingIDs.map(\.raw) == [1, 2, 3, 4, 5])
        #expect(list.count == 5)
    }

    @Test func removingLeavesTheOthersInOrder() {
        var list = Self.list([1, 2, 3])
        #expect(list.remove(WaiterID(raw: 2)) == 2)
        #expect(list.remove(WaiterID(raw: 2)) == nil)
        #expect(list.remove(WaiterID(raw: 9)) == nil)
        #expect(list.ordered == [1, 3])
        #expect(list.entries.map(\.id.raw) == [1, 3])
        #expect(list.count == 2)
    }

    @Test func appendingALaterListKeepsArrivalOrder() {
        var list = Self.list([1, 2])
        var later = Self.list([3, 4, 5])
        _ = later.remove(WaiterID(raw: 4))
        list.append(contentsOf: later)
        #expect(list.ordered == [1, 2, 3, 5])
        #expect(list.count == 4)
        // A hole carried over still behaves as one: the id is not waiting.
        #expect(list.remove(WaiterID(raw: 4)) == nil)
        #expect(list.remove(WaiterID(raw: 5)) == 5)
    }

    @Test func appendingAnInterleavedListPutsEachCallerInItsPlace() {
        var list = Self.list([1, 4])
        list.append(contentsOf: Self.list([2, 3, 5]))
        #expect(list.ordered == [1, 2, 3, 4, 5])
        #expect(list.count == 5)
    }

    @Test func appendingToAnEmptyListOrAnEmptyListChangesNothingElse() {
        var empty = WaiterList<UInt64>()
        empty.append(contentsOf: Self.list([7, 8]))
        #expect(empty.ordered == [7, 8])
        var list = Self.list([1])
        list.append(contentsOf: WaiterList())
        #expect(list.ordered == [1])
        #expect(list.count == 1)
    }
}
