/// Comparisons for protocol tokens, which are ASCII (HTTP field names and media types, OAuth
/// `token_type` values, URL schemes and hosts): only ASCII letters fold, and no Foundation call is
/// made on a hot path.
package enum ASCII {
    /// Whether `lhs` and `rhs` are equal ignoring the case of ASCII letters; any other byte must
    /// match exactly.
    package static func caseInsensitiveEquals(_ lhs: String, _ rhs: String) -> Bool {
        var lhs = lhs
        var rhs = rhs
        // Native strings are contiguous, so this compares two buffers without iterator overhead.
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                guard left.count == right.count else { return false }
                for index in left.indices {
                    let a = left[index]
                    let b = right[index]
                    if a == b { continue }
                    let folded = a | 0x20
                    guard folded == b | 0x20, folded >= 0x61, folded <= 0x7A else { return false }
                }
                return true
            }
        }
    }
}
