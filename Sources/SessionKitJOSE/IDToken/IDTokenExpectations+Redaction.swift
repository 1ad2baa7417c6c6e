extension IDTokenExpectations: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Issuer, client ID and options; the nonce and access token only as present or absent,
    /// since expectations get logged while debugging a sign-in.
    public var description: String {
        "IDTokenExpectations(issuer: \(issuer), clientID: \(clientID), nonce: \(nonce == nil ? "none" : "<redacted>"), "
            + "accessToken: \(accessToken == nil ? "none" : "<redacted>"), skew: \(skew), "
            + "allowMissingKeyID: \(allowMissingKeyID), maxAge: \(maxAge.map { "\($0)" } ?? "none"), "
            + "requiredACRValues: \(requiredACRValues))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// Shows no nonce or access token in `dump` or a debugger.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "issuer": issuer, "clientID": clientID, "skew": skew, "allowMissingKeyID": allowMissingKeyID,
                "maxAge": maxAge as Any, "requiredACRValues": requiredACRValues,
            ], displayStyle: .struct)
    }
}
