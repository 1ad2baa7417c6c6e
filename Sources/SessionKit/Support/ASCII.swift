/// Comparisons for protocol tokens, which are ASCII (HTTP field names and media types, OAuth
/// `token_type` values): only ASCII letters fold, and no Foundation call is made on a hot path.
package enum ASCII {
    /// Whether `lhs` and `rhs` are equal ignoring the case of ASCII letters; any other byte must
    /// match exactly.
    package static func caseInsensitiveEquals(_ lhs: some StringProtocol, _ rhs: some StringProtocol) -> Bool {
        lhs.utf8.elementsEqual(rhs.utf8) { a, b in
            a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= 0x61 && (a | 0x20) <= 0x7A)
        }
    }
}
