/// Schema-1 files as this version writes them, checked in so later versions must still read them.
enum StoreEnvelopeFixture {
    /// ``StoreFixtures/fullRecord`` as a credentials file.
    static let schemaOneRecord = ""
    /// ``StoreFixtures/device`` as a device file.
    static let schemaOneDevice = ""
}
