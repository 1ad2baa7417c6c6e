/// Claims a UserInfo response carries from another claims provider (OpenID Connect Core §5.6.2).
///
/// Aggregated claims come as a JWT in the response: from the issuer itself they are verified
/// with its keys (``AggregatedClaims/verified(_:)``); from any other provider they are decoded but
/// not verified (``AggregatedClaims/unverified(_:)``), and the type says so. Distributed claims
/// are a reference (``DistributedClaims``): an endpoint and perhaps an access token, never fetched
/// by the library.
///
/// Closed by design: a claim set is verified or it is not.
public enum AggregatedClaims: Sendable, Hashable {
    /// Signed by the issuer and verified with its keys.
    case verified(ClaimSet)
    /// From another claims provider, whose keys the library does not have: decoded, not verified.
    case unverified(UnverifiedClaimSet)

    /// The claim names the response maps to this source.
    public var claimNames: [String] {
        switch self {
        case .verified(let set): set.claimNames
        case .unverified(let set): set.claimNames
        }
    }
}

/// An aggregated claim set the issuer signed, checked against its keys.
public struct ClaimSet: Sendable, Hashable {
    /// The claim names (from `_claim_names`) this source provides.
    public let claimNames: [String]
    /// The JWT's `iss`: the issuer.
    public let issuer: String
    /// Every claim of the JWT.
    public let claims: [String: ClaimValue]
}

/// An aggregated claim set from a claims provider other than the issuer. Its signature was not
/// checked: treat every value as something the issuer passed on, not something it vouched for.
public struct UnverifiedClaimSet: Sendable, Hashable {
    /// The claim names (from `_claim_names`) this source provides.
    public let claimNames: [String]
    /// The JWT's `iss`, as it says, when it has one.
    public let claimedIssuer: String?
    /// Every claim of the JWT, unverified.
    public let claims: [String: ClaimValue]
}

/// A distributed claims source (Core §5.6.2): where the claims can be fetched, with the access
/// token to present when the response gave one. The library never fetches it on its own.
public struct DistributedClaims: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The claim names (from `_claim_names`) this source provides.
    public let claimNames: [String]
    /// The endpoint that holds the claims.
    public let endpoint: String
    /// The bearer token for ``endpoint``, when the response carried one; never rendered.
    public let accessToken: String?

    /// The endpoint and names; never the access token.
    public var description: String {
        "DistributedClaims(\(claimNames), endpoint: \(endpoint), accessToken: \(accessToken == nil ? "none" : "<redacted>"))"
    }

    /// The names and endpoint only: `dump` shows no access token.
    public var customMirror: Mirror {
        Mirror(self, children: ["claimNames": claimNames, "endpoint": endpoint], displayStyle: .struct)
    }
}
