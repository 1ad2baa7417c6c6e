public import Foundation

/// A user activity the app was launched or continued with, as far as the credential import needs
/// it: the activity's type and its `userInfo`, modelled without Foundation's `NSUserActivity` so
/// the intake is decided (and tested) on every platform.
public struct CredentialImportActivity: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// A `userInfo` value, as far as the intake distinguishes them.
    ///
    /// A value may be the import token, so printing one shows only its kind.
    @nonexhaustive
    public enum Value: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        /// A `UUID` object.
        case uuid(UUID)
        /// A string.
        case string(String)
        /// Anything else (a number, a date, a collection).
        case other

        /// The kind only, such as `uuid(<redacted>)`.
        public var description: String {
            switch self {
            case .uuid: "uuid(<redacted>)"
            case .string: "string(<redacted>)"
            case .other: "other"
            }
        }

        /// The kind only.
        public var debugDescription: String { description }

        /// Hides the value from `dump` and debuggers.
        public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .enum) }
    }

    /// The activity's type.
    public var activityType: String
    /// The activity's `userInfo`.
    public var userInfo: [String: Value]

    /// Creates an activity.
    public init(activityType: String, userInfo: [String: Value]) {
        self.activityType = activityType
        self.userInfo = userInfo
    }

    /// The type and the `userInfo` keys; values may hold the import token.
    public var description: String {
        "CredentialImportActivity(type: \(activityType), keys: \(userInfo.keys.sorted()))"
    }

    /// The type and the keys only.
    public var customMirror: Mirror {
        Mirror(self, children: ["activityType": activityType, "keys": userInfo.keys.sorted()], displayStyle: .struct)
    }
}
