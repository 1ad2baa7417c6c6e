public import Foundation

extension EndSessionRequest {
    /// Matches a URL that reached the app (through `handle(_:)`) against this request's return.
    ///
    /// Only a URL with the post-logout redirect URI's scheme and host (case-insensitively), port
    /// and path is this request's; anything else is ``EndSessionReturn/notForThisRequest``. Such a
    /// URL completes the logout only when it carries exactly one `state`, equal to this request's,
    /// and repeats no parameter. A request without a redirect URI expects no return at all.
    public func match(_ url: URL) -> EndSessionReturn {
        guard let postLogoutRedirectURI, let state, Self.sameEndpoint(url, postLogoutRedirectURI) else { return .notForThisRequest }
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var values: [String: String] = [:]
        for pair in (components?.percentEncodedQuery ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = parts[0].removingPercentEncoding,
                let value = (parts.count > 1 ? parts[1] : "").removingPercentEncoding
            else { return .refused(.undecodableQuery) }
            guard values.updateValue(value, forKey: name) == nil else {
                // Only names the library reads are named back; anything else is reported generically.
                return .refused(.repeatedParameter(name == "state" ? name : "another parameter"))
            }
        }
        guard let returned = values["state"] else { return .refused(.missingState) }
        return Self.constantTimeEqual(returned, state.value) ? .completed : .refused(.stateMismatch)
    }

    private static func sameEndpoint(_ url: URL, _ expected: URL) -> Bool {
        func parts(_ url: URL) -> (String?, String?, Int?, String) {
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            let path = components?.percentEncodedPath ?? ""
            return (components?.scheme?.lowercased(), components?.host?.lowercased(), components?.port, path.isEmpty ? "/" : path)
        }
        return parts(url) == parts(expected)
    }

    /// Compares without stopping at the first difference, so timing tells nothing about `state`.
    private static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices {
            difference |= left[index] ^ right[index]
        }
        return difference == 0
    }
}
