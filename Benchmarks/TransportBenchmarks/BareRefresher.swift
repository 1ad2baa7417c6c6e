import Foundation
import SessionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The baseline: the same refresh request, POSTed with nothing but an ephemeral `URLSession`.
///
/// It sends the body and headers the library sends and reads only what it needs to continue:
/// the status and the rotated refresh token. DOT rotates refresh tokens and treats a replayed
/// one as theft, so each request presents the token the previous answer carried.
struct BareRefresher {
    private let session: URLSession
    private let tokenEndpoint: URL
    private let clientID: String
    private var refreshToken: Secret

    init(tokenEndpoint: URL, clientID: String, refreshToken: Secret) {
        self.session = URLSession(configuration: .ephemeral)
        self.tokenEndpoint = tokenEndpoint
        self.clientID = clientID
        self.refreshToken = refreshToken
    }

    /// The newest refresh token of this chain, for revoking it at the end.
    var currentRefreshToken: Secret { refreshToken }

    mutating func refresh() async throws {
        var request = URLRequest(url: tokenEndpoint)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.httpBody = Data(
            "grant_type=refresh_token&refresh_token=\(Self.escape(refreshToken.value))&client_id=\(Self.escape(clientID))".utf8)
        let (body, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else { throw BenchmarkFailure("the bare refresh was answered \(status)") }
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any], let next = object["refresh_token"] as? String
        else {
            throw BenchmarkFailure("the bare refresh answer carries no refresh_token")
        }
        refreshToken = Secret(next)
    }

    func invalidate() {
        session.finishTasksAndInvalidate()
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}

/// The benchmark could not measure what it meant to.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
