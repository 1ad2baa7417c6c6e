public import SessionKitCore

/// A payment card (CXF `credit-card`).
///
/// Every member is optional, as in the format; secret members are `Secret`s.
public struct CXFCreditCardCredential: Sendable, Hashable {
    /// The card number.
    public var number: CXFField<Secret>?
    /// The cardholder's name.
    public var fullName: CXFField<String>?
    /// The card's brand or type.
    public var cardType: CXFField<String>?
    /// The verification number (CVV).
    public var verificationNumber: CXFField<Secret>?
    /// The card's PIN.
    public var pin: CXFField<Secret>?
    /// The expiry month, `YYYY-MM`.
    public var expiryDate: CXFField<String>?
    /// The first valid month, `YYYY-MM`.
    public var validFrom: CXFField<String>?

    /// Creates a credential.
    public init(
        number: CXFField<Secret>? = nil, fullName: CXFField<String>? = nil, cardType: CXFField<String>? = nil,
        verificationNumber: CXFField<Secret>? = nil, pin: CXFField<Secret>? = nil, expiryDate: CXFField<String>? = nil,
        validFrom: CXFField<String>? = nil
    ) {
        self.number = number
        self.fullName = fullName
        self.cardType = cardType
        self.verificationNumber = verificationNumber
        self.pin = pin
        self.expiryDate = expiryDate
        self.validFrom = validFrom
    }
}
