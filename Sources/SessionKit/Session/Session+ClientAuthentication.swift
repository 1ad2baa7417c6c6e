import Foundation

extension Session {
    /// The middleware that authenticates the client: a registered client kept current
    /// (``SessionConfiguration/use(_:renewingWith:)``), else the configured authentication as it is.
    static func clientAuthenticationMiddleware(
        _ configuration: SessionConfiguration, now: @escaping @Sendable () -> Date
    ) -> [any RequestMiddleware] {
        if let renewal = configuration.registrationRenewal {
            return [
                RenewingClientAuthentication(
                    registration: renewal.registration, provider: configuration.provider, registrar: renewal.registrar, now: now)
            ]
        }
        return configuration.clientAuthentication.middleware(for: configuration.provider, now: now)
    }
}
