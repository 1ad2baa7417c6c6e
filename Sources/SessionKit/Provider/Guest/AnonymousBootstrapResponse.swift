public import Foundation
public import SessionKitCore

/// A guest bootstrap's success answer, decoded strictly with the profile's field names.
public struct AnonymousBootstrapResponse: Sendable, Hashable, CustomStringConvertible {
    /// The guest user the device is bound to.
    public struct User: Sendable, Hashable, Codable {
        /// The provider's id for the user (a number at 1pass.dev, kept as its decimal text).
        public var id: String
        /// Whether the user is anonymous (a guest); `true` for every bootstrap answer so far.
        public var isAnonymous: Bool
        /// The display name the provider gave the guest, if any.
        public var nickname: String?

        /// Creates a user.
        public init(id: String, isAnonymous: Bool, nickname: String? = nil) {
            self.id = id
            self.isAnonymous = isAnonymous
            self.nickname = nickname
        }
    }

    /// The device-bound access key.
    public var accessToken: Secret
    /// The key's type; always `Bearer` (checked case-insensitively).
    public var tokenType: String
    /// Seconds until the key expires, when the provider said.
    public var expiresIn: Int?
    /// The device secret, present only on the answer that issued it (the first bootstrap, or a
    /// fresh one after the secret was dropped).
    public var deviceSecret: Secret?
    /// The guest user.
    public var user: User

    /// Creates an answer.
    public init(accessToken: Secret, tokenType: String = "Bearer", expiresIn: Int? = nil, deviceSecret: Secret? = nil, user: User) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.deviceSecret = deviceSecret
        self.user = user
    }

    /// Names the user and the lifetime, never the key or the secret.
    public var description: String {
        let lifetime = expiresIn.map { "expires_in \($0)" } ?? "no expires_in"
        return
            "AnonymousBootstrapResponse(user \(user.id), \(lifetime), \(deviceSecret == nil ? "no new secret" : "new secret <redacted>"))"
    }

    /// Decodes an answer body with `profile`'s field names; every member must have its type.
    ///
    /// - Throws: ``AnonymousBootstrapError/malformedResponse(_:)``, naming the member at fault,
    ///   never a value.
    public init(decoding body: Data, profile: AnonymousBootstrapProfile) throws(AnonymousBootstrapError) {
        let object: [String: Member]
        do {
            object = try JSONDecoder().decode([String: Member].self, from: body)
        } catch {
            // The decoder's message could quote a value; say only what failed.
            throw .malformedResponse("the answer is not a JSON object")
        }
        guard case .string(let accessToken)? = object[profile.accessTokenField], !accessToken.isEmpty else {
            throw .malformedResponse("\(profile.accessTokenField) is missing or not a non-empty string")
        }
        guard case .string(let tokenType)? = object[profile.tokenTypeField] else {
            throw .malformedResponse("\(profile.tokenTypeField) is missing or not a string")
        }
        guard ASCII.caseInsensitiveEquals(tokenType, "bearer") else {
            throw .malformedResponse("\(profile.tokenTypeField) is not Bearer")
        }
        var expiresIn: Int?
        switch object[profile.expiresInField] {
        case nil, .null?: break
        case .integer(let seconds)? where seconds >= 0: expiresIn = seconds
        default: throw .malformedResponse("\(profile.expiresInField) is not a non-negative integer")
        }
        var deviceSecret: Secret?
        if let field = profile.deviceSecretField {
            switch object[field] {
            case nil, .null?: break
            case .string(let secret)? where !secret.isEmpty: deviceSecret = Secret(secret)
            default: throw .malformedResponse("\(field) is not a non-empty string")
            }
        }
        guard case .object(let user)? = object[profile.userField] else {
            throw .malformedResponse("\(profile.userField) is missing or not an object")
        }
        let id: String
        switch user["id"] {
        case .integer(let number)?: id = String(number)
        case .string(let text)? where !text.isEmpty: id = text
        default: throw .malformedResponse("\(profile.userField).id is missing or not an integer or string")
        }
        guard case .boolean(let anonymous)? = user["anonymous"] else {
            throw .malformedResponse("\(profile.userField).anonymous is missing or not a boolean")
        }
        var nickname: String?
        switch user["nickname"] {
        case nil, .null?: break
        case .string(let text)?: nickname = text
        default: throw .malformedResponse("\(profile.userField).nickname is not a string")
        }
        self.init(
            accessToken: Secret(accessToken), tokenType: tokenType, expiresIn: expiresIn, deviceSecret: deviceSecret,
            user: User(id: id, isAnonymous: anonymous, nickname: nickname))
    }

    /// One JSON member, typed as it was written: `true` is never read as 1, nor 1 as `true`.
    private enum Member: Decodable {
        case string(String)
        case integer(Int)
        case boolean(Bool)
        case null
        case object([String: Member])
        case other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let flag = try? container.decode(Bool.self) {
                self = .boolean(flag)
            } else if let number = try? container.decode(Int.self) {
                self = .integer(number)
            } else if let text = try? container.decode(String.self) {
                self = .string(text)
            } else if let members = try? container.decode([String: Member].self) {
                self = .object(members)
            } else {
                self = .other
            }
        }
    }
}
