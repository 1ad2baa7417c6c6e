import SessionKitJOSE

/// The durable record of import tokens already used, so a token imports at most once, across
/// relaunches too.
///
/// `CredentialImportCoordinator` marks a token before handing it to the importer: a crash in
/// between leaves the token spent rather than importable twice. Ledgers keep only a digest of
/// each token and may forget the oldest ones past a capacity (tokens are single-use anyway;
/// the ledger guards against a repeated delivery, which comes soon after the first).
public protocol ImportTokenLedger: Sendable {
    /// Records `token` durably; `false` when it was recorded already.
    func markUsed(_ token: CredentialImportToken) async throws(CredentialStoreError) -> Bool
    /// Whether `token` is recorded.
    func contains(_ token: CredentialImportToken) async throws(CredentialStoreError) -> Bool
}

extension CredentialImportToken {
    /// What a ledger keeps: the SHA-256 of the token's canonical text, in hexadecimal.
    package var ledgerDigest: String {
        let digest = SHA256Digest.hash(Array(uuid.uuidString.uppercased().utf8))
        return digest.map { byte in
            let digits = String(byte, radix: 16)
            return byte < 0x10 ? "0" + digits : digits
        }.joined()
    }
}
