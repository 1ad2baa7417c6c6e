public import Foundation
import SessionKitJOSE

/// How `Codable` values that mirror the format (Apple's `ASExportedCredentialData` and its
/// members) are written as Credential Exchange Format JSON.
///
/// Apple's documentation for its importable types says to encode them with
/// `secondsSince1970` dates, which is the format's UNIX-seconds timestamp; a plain
/// `JSONEncoder()` would write seconds since 2001 instead. `Data` members are written as the
/// format's unpadded base64url (a plain encoder writes padded standard base64, which the decoder
/// would accept only as a noted leniency).
public enum CXFJSONEncoding {
    /// A new encoder configured as above.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.dataEncodingStrategy = .custom { data, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Base64URL.encode(data))
        }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
