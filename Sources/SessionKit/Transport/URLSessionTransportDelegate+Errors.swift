import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSessionTransportDelegate {
    /// `scheme://host:port` of a URL: enough to tell which server failed, while the path and
    /// query, which may carry codes or identifiers, stay out of error text.
    static func endpoint(of url: URL?) -> String {
        guard let url, let scheme = url.scheme, let host = url.host else { return "unknown server" }
        if let port = url.port {
            return "\(scheme)://\(host):\(port)"
        }
        return "\(scheme)://\(host)"
    }

    /// Maps a URLSession failure to the transport's taxonomy. The message is built here from the
    /// error code alone, because Foundation's own descriptions embed the full URL.
    static func transportError(for error: any Error, endpoint: String) -> TransportError {
        guard let urlError = error as? URLError else {
            return .connectionFailed("request failed (\(endpoint))")
        }
        switch urlError.code {
        case .cancelled:
            return .cancelled
        case .timedOut:
            return .timedOut
        case .cannotConnectToHost:
            return .connectionFailed("could not connect (\(endpoint))")
        case .cannotFindHost, .dnsLookupFailed:
            return .connectionFailed("host not found (\(endpoint))")
        case .networkConnectionLost:
            return .connectionFailed("connection lost (\(endpoint))")
        case .notConnectedToInternet:
            return .connectionFailed("no network connection (\(endpoint))")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected,
            .clientCertificateRequired:
            return .connectionFailed("TLS handshake failed (\(endpoint))")
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
            return .connectionFailed("malformed HTTP response (\(endpoint))")
        case .badURL, .unsupportedURL:
            return .connectionFailed("unsupported URL (\(endpoint))")
        default:
            return .connectionFailed("URL error \(urlError.code.rawValue) (\(endpoint))")
        }
    }
}
