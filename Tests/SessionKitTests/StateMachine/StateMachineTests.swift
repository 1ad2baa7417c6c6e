import Testing

/// The tests of the `StateMachine` layer: the pure session state machine and its transition table.
///
/// Every suite of the folder nests here, so `swift test --filter StateMachine` runs them all.
@Suite enum StateMachineTests {}
