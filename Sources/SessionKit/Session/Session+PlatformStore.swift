extension Session {
    /// Why this session keeps its credentials in files instead of a secure store, or `nil` when the
    /// Keychain, the desktop keyring or a store the app passed holds them.
    ///
    /// Only the platform store of `Session(provider:presenter:)` falls back: on Linux, to
    /// `$XDG_DATA_HOME/sessionkit/<client id>` when no Secret Service answers on the session bus or
    /// libsecret is not installed. Reading it makes the choice if no credential was read yet.
    public var storeFallbackReason: String? {
        get async { await (store as? PlatformCredentialStore)?.fallbackReason() }
    }

    /// Publishes the platform store's fallback, once per ``restore()``.
    func reportStoreFallback() async {
        if let reason = await storeFallbackReason { modify { $0.credentialStoreFellBack(reason: reason) } }
    }
}
