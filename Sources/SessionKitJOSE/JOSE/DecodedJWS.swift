/// A compact JWS taken apart and checked for shape — not yet verified.
///
/// Holding one says only that the token is well-formed: three canonical base64url segments,
/// a strict-JSON header object without `crit`. Its signature has not been checked.
public struct DecodedJWS: Sendable {
    /// The protected header.
    public let header: JOSEHeader
    /// The payload bytes; opaque at this layer (a JWS payload need not be JSON, or non-empty).
    public let payload: [UInt8]
    /// The signature bytes.
    public let signature: [UInt8]
    /// The ASCII bytes `header.payload` the signature covers.
    public let signingInput: [UInt8]

    /// The header re-encoded as compact JSON, for display.
    public var headerJSON: String {
        // The header already parsed strictly, so this parse cannot fail.
        let object = (try? JSONParser.parseObject(header.bytes)) ?? JSONObject()
        return JSONWriter.serialize(.object(object))
    }

    /// The payload re-encoded as compact JSON, for display. Throws when the payload is not a
    /// strict JSON object.
    public func payloadJSON() throws(JOSEError) -> String {
        JSONWriter.serialize(.object(try JSONParser.parseObject(payload)))
    }
}
