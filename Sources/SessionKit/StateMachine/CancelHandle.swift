import SessionKitCore

/// The machine's hold on work it may end on its own: the ``CancelToken`` the shell races that
/// work against.
///
/// The machine makes a handle when it orders the work, keeps it in the payload of the stage the
/// work belongs to (a handoff's presentation and device requests, a refresh attempt, a timer, a
/// provider logout's page), and hands it back in the action that ends the work. The shell keeps
/// no record of its children: the handle is the only way to one.
///
/// Two handles compare equal. An action says which work it orders or ends by its other values;
/// the token is the shell's means, not a value the machine decides on. Tests that need to know
/// that an action ends the very work an earlier one started compare ``token`` by identity.
struct CancelHandle: Hashable, Sendable {
    let token = CancelToken()

    static func == (lhs: Self, rhs: Self) -> Bool { true }

    func hash(into hasher: inout Hasher) {}
}
