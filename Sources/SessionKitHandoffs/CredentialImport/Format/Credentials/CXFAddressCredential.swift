/// A postal address (CXF `address`).
///
/// Every member is optional, as in the format; secret members are `Secret`s.
public struct CXFAddressCredential: Sendable, Hashable {
    /// The street address; lines are separated by `\n`.
    public var streetAddress: CXFField<String>?
    /// The postal code.
    public var postalCode: CXFField<String>?
    /// The city.
    public var city: CXFField<String>?
    /// The state or province (ISO 3166-2).
    public var territory: CXFField<String>?
    /// The country (ISO 3166-1 alpha-2).
    public var country: CXFField<String>?
    /// A telephone number for the address.
    public var telephone: CXFField<String>?

    /// Creates a credential.
    public init(
        streetAddress: CXFField<String>? = nil, postalCode: CXFField<String>? = nil, city: CXFField<String>? = nil,
        territory: CXFField<String>? = nil, country: CXFField<String>? = nil, telephone: CXFField<String>? = nil
    ) {
        self.streetAddress = streetAddress
        self.postalCode = postalCode
        self.city = city
        self.territory = territory
        self.country = country
        self.telephone = telephone
    }
}
