/// Schema-1 files as this version writes them, checked in so later versions must still read them.
///
/// Base64 of the whole file (frame, JSON payload, SHA-256); line breaks are ignored when decoding.
enum StoreEnvelopeFixture {
    /// ``StoreFixtures/fullRecord`` as a credentials file.
    static let schemaOneRecord = """
        iVNLUw0KGgpDUkVEAAAAAQAAAAAAAAHceyJwZW5kaW5nT3BlcmF0aW9uIjp7ImRlbGV0ZUFjY291bnQiOnt9fSwicGVuZGlu
        Z1Jldm9jYXRpb25zIjpbIm9sZC1yZWZyZXNoLTEiLCJvbGQtcmVmcmVzaC0yIl0sInNlc3Npb24iOnsiYWNjZXNzVG9rZW4i
        OiJhY2Nlc3MtdG9rZW4tdmFsdWUiLCJhY2Nlc3NUb2tlbkV4cGlyZXNBdCI6Nzg4OTE4NDAwLjI1LCJhdWRpZW5jZSI6WyJj
        bGllbnQtYSIsImNsaWVudC1iIl0sImNhbm9uaWNhbFN1YmplY3QiOiJ1c2VyLTEiLCJpZFRva2VuIjoiaWQtdG9rZW4tdmFs
        dWUiLCJpc0Fub255bW91cyI6ZmFsc2UsImlzc3VlciI6Imh0dHBzOi8vYXBpLjFwYXNzLmRldiIsImxpbmtlZFN1YmplY3Rz
        IjpbInVzZXItNDIiLCJ1c2VyLTciXSwicGVuZGluZ1JlZnJlc2hUb2tlbiI6InBlbmRpbmctcmVmcmVzaC12YWx1ZSIsInJl
        ZnJlc2hUb2tlbiI6InJlZnJlc2gtdG9rZW4tdmFsdWUiLCJyb3RhdGlvbiI6Nywic3ViamVjdCI6InVzZXItNDIifX1/S2dy
        Pxg4/x63Ce5QlbzUCV7cyrh5WmLadqG5TfOQ2A==
        """

    /// ``StoreFixtures/fullRecord`` without the account-merge claims, as written before
    /// `canonicalSubject`, `linkedSubjects` and `isAnonymous` existed.
    static let schemaOneRecordBeforeAccountClaims = """
        iVNLUw0KGgpDUkVEAAAAAQAAAAAAAAGGeyJwZW5kaW5nT3BlcmF0aW9uIjp7ImRlbGV0ZUFjY291bnQiOnt9fSwicGVuZGlu
        Z1Jldm9jYXRpb25zIjpbIm9sZC1yZWZyZXNoLTEiLCJvbGQtcmVmcmVzaC0yIl0sInNlc3Npb24iOnsiYWNjZXNzVG9rZW4i
        OiJhY2Nlc3MtdG9rZW4tdmFsdWUiLCJhY2Nlc3NUb2tlbkV4cGlyZXNBdCI6Nzg4OTE4NDAwLjI1LCJhdWRpZW5jZSI6WyJj
        bGllbnQtYSIsImNsaWVudC1iIl0sImlkVG9rZW4iOiJpZC10b2tlbi12YWx1ZSIsImlzc3VlciI6Imh0dHBzOi8vYXBpLjFw
        YXNzLmRldiIsInBlbmRpbmdSZWZyZXNoVG9rZW4iOiJwZW5kaW5nLXJlZnJlc2gtdmFsdWUiLCJyZWZyZXNoVG9rZW4iOiJy
        ZWZyZXNoLXRva2VuLXZhbHVlIiwicm90YXRpb24iOjcsInN1YmplY3QiOiJ1c2VyLTQyIn19pUHSX6YwB+f3MBlBZIM/LRIO
        YtGl3m3J0ZfDiUYhYIo=
        """

    /// ``StoreFixtures/dpopRecord`` as a credentials file: schema 2, a session with its DPoP key.
    static let schemaTwoRecord = """
        iVNLUw0KGgpDUkVEAAAAAgAAAAAAAAEdeyJwZW5kaW5nUmV2b2NhdGlvbnMiOltdLCJzZXNzaW9uIjp7ImF1ZGllbmNlIjpb
        ImMiXSwiZHBvcEtleSI6eyJwbGFjZW1lbnQiOiJyZWNvcmQiLCJwcml2YXRlU2NhbGFyIjoic2NhbGFyLXZhbHVlIiwidGh1
        bWJwcmludCI6ImprdC12YWx1ZSIsInRva2Vuc0FyZUJvdW5kIjp0cnVlLCJ4IjoieC12YWx1ZSIsInkiOiJ5LXZhbHVlIn0s
        Imlzc3VlciI6Imh0dHBzOi8vaXNzdWVyLmV4YW1wbGUiLCJyZWZyZXNoVG9rZW4iOiJyZWZyZXNoLXZhbHVlIiwicm90YXRp
        b24iOjMsInN1YmplY3QiOiJzIn19NHGikksfDzFwBjrZakobIBvPzUkGKAQ3LY4UrCPJJks=
        """

    /// ``StoreFixtures/device`` as a device file.
    static let schemaOneDevice = """
        iVNLUw0KGgpERVZDAAAAAQAAAAAAAABaeyJkZXZpY2VTZWNyZXQiOiJkZXZpY2Utc2VjcmV0LXZhbHVlIiwiZGV2aWNlVVVJ
        RCI6IjZGMUEyQjNDLTAwMDAtNDAwMC04MDAwLTAwMDAwMDAwMDAwMSJ9mjz3tOW6ehgqob71bTQ4WPp+aiuZklavxdh5onjT
        WFE=
        """
}
