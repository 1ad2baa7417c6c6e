public import SessionKitCore

/// An identity card or similar document (CXF `identity-document`).
///
/// Every member is optional, as in the format; secret members are `Secret`s.
public struct CXFIdentityDocumentCredential: Sendable, Hashable {
    /// The issuing country (ISO 3166-1 alpha-2).
    public var issuingCountry: CXFField<String>?
    /// The document's number, kept secret.
    public var documentNumber: CXFField<Secret>?
    /// The person's identification number, kept secret.
    public var identificationNumber: CXFField<Secret>?
    /// The holder's nationality.
    public var nationality: CXFField<String>?
    /// The holder's name.
    public var fullName: CXFField<String>?
    /// The holder's date of birth.
    public var birthDate: CXFField<String>?
    /// The holder's place of birth.
    public var birthPlace: CXFField<String>?
    /// The sex the document states.
    public var sex: CXFField<String>?
    /// When the document was issued.
    public var issueDate: CXFField<String>?
    /// When the document expires.
    public var expiryDate: CXFField<String>?
    /// Who issued it.
    public var issuingAuthority: CXFField<String>?

    /// Creates a credential.
    public init(
        issuingCountry: CXFField<String>? = nil, documentNumber: CXFField<Secret>? = nil, identificationNumber: CXFField<Secret>? = nil,
        nationality: CXFField<String>? = nil, fullName: CXFField<String>? = nil, birthDate: CXFField<String>? = nil,
        birthPlace: CXFField<String>? = nil, sex: CXFField<String>? = nil, issueDate: CXFField<String>? = nil,
        expiryDate: CXFField<String>? = nil, issuingAuthority: CXFField<String>? = nil
    ) {
        self.issuingCountry = issuingCountry
        self.documentNumber = documentNumber
        self.identificationNumber = identificationNumber
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
