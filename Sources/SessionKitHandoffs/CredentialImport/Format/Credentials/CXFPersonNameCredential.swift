/// A person's name in its parts (CXF `person-name`).
///
/// Every member is optional, as in the format; secret members are `Secret`s.
public struct CXFPersonNameCredential: Sendable, Hashable {
    /// A title, such as `Dr.`.
    public var title: CXFField<String>?
    /// The given name.
    public var given: CXFField<String>?
    /// An informal given name.
    public var givenInformal: CXFField<String>?
    /// Further given names.
    public var given2: CXFField<String>?
    /// A surname prefix, such as `van`.
    public var surnamePrefix: CXFField<String>?
    /// The surname.
    public var surname: CXFField<String>?
    /// A second surname.
    public var surname2: CXFField<String>?
    /// Post-nominal letters, such as `PhD`.
    public var credentials: CXFField<String>?
    /// A generation marker, such as `Jr.`.
    public var generation: CXFField<String>?

    /// Creates a credential.
    public init(
        title: CXFField<String>? = nil, given: CXFField<String>? = nil, givenInformal: CXFField<String>? = nil,
        given2: CXFField<String>? = nil, surnamePrefix: CXFField<String>? = nil, surname: CXFField<String>? = nil,
        surname2: CXFField<String>? = nil, credentials: CXFField<String>? = nil, generation: CXFField<String>? = nil
    ) {
        self.title = title
        self.given = given
        self.givenInformal = givenInformal
        self.given2 = given2
        self.surnamePrefix = surnamePrefix
        self.surname = surname
        self.surname2 = surname2
        self.credentials = credentials
        self.generation = generation
    }
}
