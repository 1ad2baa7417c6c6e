public import SessionKitCore

/// A driver's licence (CXF `drivers-license`).
///
/// Every member is optional, as in the format; secret members are `Secret`s.
public struct CXFDriversLicenseCredential: Sendable, Hashable {
    /// The holder's name.
    public var fullName: CXFField<String>?
    /// The holder's date of birth.
    public var birthDate: CXFField<String>?
    /// When the licence was issued.
    public var issueDate: CXFField<String>?
    /// When the licence expires.
    public var expiryDate: CXFField<String>?
    /// Who issued it.
    public var issuingAuthority: CXFField<String>?
    /// The issuing state or province (ISO 3166-2).
    public var territory: CXFField<String>?
    /// The issuing country (ISO 3166-1 alpha-2).
    public var country: CXFField<String>?
    /// The licence number, kept secret.
    public var licenseNumber: CXFField<Secret>?
    /// The vehicle classes it covers.
    public var licenseClass: CXFField<String>?

    /// Creates a credential.
    public init(
        fullName: CXFField<String>? = nil, birthDate: CXFField<String>? = nil, issueDate: CXFField<String>? = nil,
        expiryDate: CXFField<String>? = nil, issuingAuthority: CXFField<String>? = nil, territory: CXFField<String>? = nil,
        country: CXFField<String>? = nil, licenseNumber: CXFField<Secret>? = nil, licenseClass: CXFField<String>? = nil
    ) {
        self.fullName = fullName
        self.birthDate = birthDate
        self.issueDate = issueDate
        self.expiryDate = expiryDate
        self.issuingAuthority = issuingAuthority
        self.territory = territory
        self.country = country
        self.licenseNumber = licenseNumber
        self.licenseClass = licenseClass
    }
}
