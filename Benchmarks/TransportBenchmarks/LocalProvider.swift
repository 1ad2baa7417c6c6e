import Foundation

/// The django-oauth-toolkit provider started by `Scripts/providers/providers.sh start`, as
/// described by the variables `providers.sh env` exports.
struct LocalProvider: Sendable {
    /// Variables that must be set; the benchmark cannot run without them.
    static let requiredVariables = [
        "SESSIONKIT_DOT_ISSUER", "SESSIONKIT_DOT_CLIENT_ID", "SESSIONKIT_DOT_REDIRECT_URI", "SESSIONKIT_DOT_USER_HEADER",
    ]

    var issuer: String
    var clientID: String
    var redirectURI: URL
    /// The header that signs the authorization request in as a user, without a login page.
    var userHeader: String
    /// RFC 7009 endpoint (DOT does not list it in discovery); used only to revoke the chains at the end.
    var revocationEndpoint: URL?

    /// What is wrong with the environment, if anything: missing or unparsable variables.
    enum Problem: Error, CustomStringConvertible {
        case missing([String])
        case invalid(String)

        var description: String {
            switch self {
            case .missing(let names):
                """
                the local provider is not configured (missing: \(names.joined(separator: ", "))).
                Start it and export its variables, then run again:
                  Scripts/providers/providers.sh start
                  eval "$(Scripts/providers/providers.sh env)"
                  swift run -c release TransportBenchmarks
                  Scripts/providers/providers.sh stop
                """
            case .invalid(let name): "\(name) is not a valid URL"
            }
        }
    }

    static func fromEnvironment(_ variables: [String: String] = ProcessInfo.processInfo.environment) throws(Problem) -> LocalProvider {
        let missing = requiredVariables.filter { (variables[$0] ?? "").isEmpty }
        guard missing.isEmpty else { throw .missing(missing) }
        guard let redirectURI = URL(string: variables["SESSIONKIT_DOT_REDIRECT_URI"]!) else {
            throw .invalid("SESSIONKIT_DOT_REDIRECT_URI")
        }
        guard URL(string: variables["SESSIONKIT_DOT_ISSUER"]!) != nil else { throw .invalid("SESSIONKIT_DOT_ISSUER") }
        return LocalProvider(
            issuer: variables["SESSIONKIT_DOT_ISSUER"]!, clientID: variables["SESSIONKIT_DOT_CLIENT_ID"]!, redirectURI: redirectURI,
            userHeader: variables["SESSIONKIT_DOT_USER_HEADER"]!,
            revocationEndpoint: variables["SESSIONKIT_DOT_REVOCATION_ENDPOINT"].flatMap(URL.init(string:)))
    }
}
