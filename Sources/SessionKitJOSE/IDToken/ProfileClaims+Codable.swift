#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The standard claims as a flat object under their claim names (`name`, `given_name`, …), the
/// shape an id_token carries them in, so a session can keep them durably.
extension ProfileClaims: Codable {
    /// Reads the claims from a flat object; absent members stay `nil`.
    public init(from decoder: any Decoder) throws {
        try self.init(from: decoder.container(keyedBy: ClaimName.self))
    }

    /// Writes the present claims under their claim names.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ClaimName.self)
        try encode(to: &container)
    }
}
