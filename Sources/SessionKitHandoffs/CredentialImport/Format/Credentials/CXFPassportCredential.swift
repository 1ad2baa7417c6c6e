public import SessionKitCore

/// A passport (CXF `passport`).
///
/// Every member is optional, as in the format; secret members are `Secret`s.
public struct CXFPassportCredential: Sendable, Hashable {
    /// The issuing country (ISO 3166-1 alpha-2).
    public var issuingCountry: CXFField<String>?
    /// The document code (ICAO Doc 9303).
    public var passportType: CXFField<String>?
    /// The passport number, kept secret.
    public var passportNumber: CXFField<Secret>?
    /// The holder's national identification number, kept secret.
    public var nationalIdentificationNumber: CXFField<Secret>?
    /// The holder's nationality.
    public var nationality: CXFField<String>?
    /// The holder's name.
    public var fullName: CXFField<String>?
    /// The holder's date of birth.
    public var birthDate: CXFField<String>?
    /// The holder's place of birth.
    public var birthPlace: CXFField<String>?
    /// The sex the passport states.
    public var sex: CXFField<String>?
    /// When the passport was issued.
    public var issueDate: CXFField<String>?
    /// When the passport expires.
    public var expiryDate: CXFField<String>?
    /// Who issued it.
    public var issuingAuthority: CXFField<String>?

    /// Creates a credential.
    public init(
        issuingCountry: CXFField<String>? = nil, passportType: CXFField<String>? = nil, passportNumber: CXFField<Secret>? = nil,
        nationalIdentificationNumber: CXFField<Secret>? = nil, nationality: CXFField<String>? = nil, fullName: CXFField<String>? = nil,
        birthDate: CXFField<String>? = nil, birthPlace: CXFField<String>? = nil, sex: CXFField<String>? = nil,
        issueDate: CXFField<String>? = nil, expiryDate: CXFField<String>? = nil, issuingAuthority: CXFField<String>? = nil
    ) {
        self.issuingCountry = issuingCountry
        self.passportType = passportType
        self.passportNumber = passportNumber
        self.nationalIdentificationNumber = nationalIdentificationNumber
        self.nationality = nationality
        self.fullName = fullName
        self.birthDate = birthDate
        self.birthPlace = birthPlace
        self.sex = sex
        self.issueDate = issueDate
        self.expiryDate = expiryDate
        self.issuingAuthority = issuingAuthority
    }
}
