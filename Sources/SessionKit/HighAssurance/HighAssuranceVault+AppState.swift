#if canImport(UIKit) && !os(watchOS)
    import UIKit

    extension HighAssuranceVault {
        /// Whether the app is in the background, from `UIApplication.shared.applicationState` on
        /// the main actor. `inactive` (a system sheet, the biometric prompt itself) is not background.
        ///
        /// Compiled only where UIKit exists; the Linux build and tests do not cover it.
        @MainActor
        public static func systemIsInBackground() async -> Bool {
            UIApplication.shared.applicationState == .background
        }
    }
#else
    extension HighAssuranceVault {
        /// Always `false`: this platform has no app state the vault can read. Pass your own
        /// `isInBackground` when the app knows better (a daemon, a background job).
        public static func systemIsInBackground() async -> Bool {
            false
        }
    }
#endif
