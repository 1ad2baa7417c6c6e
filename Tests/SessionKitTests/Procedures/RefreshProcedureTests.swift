import Foundation
import Testing

@testable import SessionKit

/// Every branch of one refresh under the lease, one input per line.
@Suite("Refresh procedure")
struct RefreshProcedureTests {
    typealias F = ProcedureFixtures
    typealias Procedure = RefreshProcedure<PlannedTokens>

    private func make(previous: StoredSession? = F.session("RT-1"), journaled: Bool = false) -> Procedure {
        Procedure(previous: previous, forJournaledOperation: journaled, timing: RefreshTiming(leadTime: .seconds(Int(F.lead))))
    }

    // MARK: What is presented

    @Test func theStoredRefreshTokenIsPresented() {
        var p = make()
        #expect(line(p.start()) == "load")
        #expect(line(p.loaded(.success(F.record(F.session("RT-1"))), now: F.now)) == "request(RT-1)")
    }

    @Test func aPendingTokenFromAnInterruptedRefreshIsPresentedFirst() {
        var p = make()
        _ = p.start()
        #expect(line(p.loaded(.success(F.record(F.session("RT-1", pending: "RT-2"))), now: F.now)) == "request(RT-2)")
    }

    @Test func atColdLaunchWhateverIsStoredIsTheSession() {
        var p = make(previous: nil)
        _ = p.start()
        #expect(line(p.loaded(.success(F.record(F.session("RT-7", rotation: 9))), now: F.now)) == "request(RT-7)")
    }

    @Test func nothingStoredIsNotSignedIn() {
        var p = make()
        _ = p.start()
        #expect(line(p.loaded(.success(F.record(nil)), now: F.now)) == "finish(notSignedIn)")
    }

    @Test func aJournaledOperationOwnsTheSessionUnlessTheRefreshIsForIt() {
        var plain = make()
        _ = plain.start()
        #expect(line(plain.loaded(.success(F.record(F.session("RT-1"), pending: .signOut)), now: F.now)) == "finish(notSignedIn)")
        var forIt = make(previous: nil, journaled: true)
        _ = forIt.start()
        #expect(line(forIt.loaded(.success(F.record(F.session("RT-1"), pending: .deleteAccount)), now: F.now)) == "request(RT-1)")
    }

    @Test func anUnreadableStoreFailsTheRefresh() {
        var p = make()
        _ = p.start()
        #expect(line(p.loaded(.failure(.corrupted("checksum")), now: F.now)) == "finish(storageFailed corrupted)")
    }

    // MARK: Another process refreshed first

    @Test func aNewerStoredSessionIsAdoptedWhenItIsFreshAndTheSameAccount() {
        var p = make()
        _ = p.start()
        #expect(line(p.loaded(.success(F.record(F.session("RT-2", rotation: 1))), now: F.now)) == "adopt(RT-2)")
        #expect(line(p.adoptionChecked(F.tokens("B", refresh: "RT-2"), now: F.now)) == "finish(refreshed B)")
    }

    @Test func aNewerSessionThatIsAnotherAccountOrIncompleteIsRefreshedInstead() {
        var p = make()
        _ = p.start()
        _ = p.loaded(.success(F.record(F.session("RT-2", rotation: 1))), now: F.now)
        #expect(line(p.adoptionChecked(nil, now: F.now)) == "request(RT-2)")
    }

    @Test func aNewerSessionAlreadyInsideTheLeadTimeIsRefreshedInstead() {
        var p = make()
        _ = p.start()
        _ = p.loaded(.success(F.record(F.session("RT-2", rotation: 1, expiresIn: 30))), now: F.now)
        #expect(line(p.adoptionChecked(F.tokens("B", refresh: "RT-2", expiresIn: 30), now: F.now)) == "request(RT-2)")
    }

    // MARK: The provider's answer

    @Test(arguments: [F.unavailable, .transport(.timedOut), .transport(.connectionFailed("offline")), F.forbidden])
    func aFailureThatMayPassEndsTheAttemptWithoutTouchingTheStore(error: ProviderError) {
        var p = make()
        _ = p.start()
        _ = p.loaded(.success(F.record(F.session("RT-1"))), now: F.now)
        #expect(line(p.refreshAnswered(.failure(error))) == "finish(providerFailed \(error.summary))")
    }

    @Test(arguments: [F.invalidGrant, F.emptyBadRequest, F.unauthorized])
    func aRefusalIsFinalOnlyAfterAReReadFindsNothingNewer(error: ProviderError) {
        var p = make()
        _ = p.start()
        _ = p.loaded(.success(F.record(F.session("RT-1"))), now: F.now)
        #expect(line(p.refreshAnswered(.failure(error))) == "load")
        #expect(line(p.loaded(.success(F.record(F.session("RT-1"))), now: F.now)) == "save(no session)")
        #expect(line(p.saved(.success(()))) == "finish(refreshTokenRejected \(error.summary))")
    }

    @Test func aRefusalAfterAnotherProcessRotatedStartsOverFromItsRecord() {
        var p = make()
        _ = p.start()
        _ = p.loaded(.success(F.record(F.session("RT-1"))), now: F.now)
        _ = p.refreshAnswered(.failure(F.invalidGrant))
        #expect(line(p.loaded(.success(F.record(F.session("RT-2", rotation: 1))), now: F.now)) == "adopt(RT-2)")
        #expect(line(p.adoptionChecked(F.tokens("B", refresh: "RT-2"), now: F.now)) == "finish(refreshed B)")
    }

    @Test func aRefusedPendingTokenFallsBackToTheOneBeforeIt() {
        var p = make()
        _ = p.start()
        _ = p.loaded(.success(F.record(F.session("RT-1", pending: "RT-2"))), now: F.now)
        _ = p.refreshAnswered(.failure(F.invalidGrant))
        #expect(line(p.loaded(.success(F.record(F.session("RT-1", pending: "RT-2"))), now: F.now)) == "request(RT-1)")
    }

    @Test func atMostTwoPassesThenTheRefusalStands() {
        var p = make()
        _ = p.start()
        _ = p.loaded(.success(F.record(F.session("RT-1"))), now: F.now)
        _ = p.refreshAnswered(.failure(F.invalidGrant))
        _ = p.loaded(.success(F.record(F.session("RT-2", rotation: 1))), now: F.now)
        #expect(line(p.adoptionChecked(nil, now: F.now)) == "request(RT-2)")
        _ = p.refreshAnswered(.failure(F.invalidGrant))
        #expect(
            line(p.loaded(.success(F.record(F.session("RT-3", rotation: 2))), now: F.now))
                == "finish(refreshTokenRejected 400 invalid_grant)")
    }

    @Test func aRefusalWhoseWipeCannotBeWrittenIsAStorageFailure() {
        var p = make()
        _ = p.start()
        _ = p.loaded(.success(F.record(F.session("RT-1"))), now: F.now)
        _ = p.refreshAnswered(.failure(F.invalidGrant))
        _ = p.loaded(.success(F.record(F.session("RT-1"))), now: F.now)
        #expect(line(p.saved(.failure(.noSpace))) == "finish(storageFailed no_space)")
    }

    // MARK: The DPoP nonce step (RFC 9449 §8)

    @Test func aNonceDemandResendsTheSameTokenOnceAsAStepOfItsOwn() {
        var p = make()
        _ = p.start()
        #expect(line(p.loaded(.success(F.record(F.session("RT-1"))), now: F.now)) == "request(RT-1)")
        #expect(line(p.refreshAnswered(.failure(F.useNonce))) == "retryWithNonce(RT-1)")
        #expect(line(p.refreshAnswered(.success(F.response(rotated: "RT-2")))) == "verifyCached(base RT-1)")
    }

    @Test func aSecondNonceDemandIsTheProvidersAnswerAndKeepsTheSession() {
        var p = make()
        _ = p.start()
        _ = p.loaded(.success(F.record(F.session("RT-1"))), now: F.now)
        _ = p.refreshAnswered(.failure(F.useNonce))
        let step = p.refreshAnswered(.failure(F.useNonce))
        #expect(line(step) == "finish(providerFailed 400 use_dpop_nonce)")
        guard case .finish(.providerFailed(let error)) = step else { return }
        // About the proof, never the grant: no re-read, no wipe, the session keeps its token.
        #expect(error.isDPoPRefusal)
        #expect(error.disposition(in: .refresh) == .transient)
    }

    @Test func anInvalidGrantAnsweringTheNonceRetryIsATokenSpentByTheRetry() {
        var p = make()
        _ = p.start()
        _ = p.loaded(.success(F.record(F.session("RT-1"))), now: F.now)
        _ = p.refreshAnswered(.failure(F.useNonce))
        // Final only after a re-read finds nothing newer, like any refusal of the token.
        #expect(line(p.refreshAnswered(.failure(F.invalidGrant))) == "load")
        #expect(line(p.loaded(.success(F.record(F.session("RT-1"))), now: F.now)) == "save(no session)")
        #expect(line(p.saved(.success(()))) == "finish(refreshTokenRejected dpop_refresh_token_spent_by_nonce_retry)")
    }

    @Test func aTransientAnswerToTheNonceRetryEndsTheAttemptWithoutTouchingTheStore() {
        var p = make()
        _ = p.start()
        _ = p.loaded(.success(F.record(F.session("RT-1"))), now: F.now)
        _ = p.refreshAnswered(.failure(F.useNonce))
        #expect(line(p.refreshAnswered(.failure(F.unavailable))) == "finish(providerFailed HTTP 503)")
    }

    @Test func theSecondPassHasANonceRetryOfItsOwn() {
        // A re-read that found another process's token starts a new request: its one nonce retry
        // is its own, and presents that request's token.
        var p = make()
        _ = p.start()
        _ = p.loaded(.success(F.record(F.session("RT-1"))), now: F.now)
        _ = p.refreshAnswered(.failure(F.useNonce))
        _ = p.refreshAnswered(.failure(F.invalidGrant))
        _ = p.loaded(.success(F.record(F.session("RT-2", rotation: 1))), now: F.now)
        #expect(line(p.adoptionChecked(nil, now: F.now)) == "request(RT-2)")
        #expect(line(p.refreshAnswered(.failure(F.useNonce))) == "retryWithNonce(RT-2)")
        #expect(line(p.refreshAnswered(.failure(F.useNonce))) == "finish(providerFailed 400 use_dpop_nonce)")
    }

    // MARK: Verification and durability

    private func answered(rotated: String? = "RT-2", stored: StoredSession = F.session("RT-1")) -> Procedure {
        var p = make()
        _ = p.start()
        _ = p.loaded(.success(F.record(stored)), now: F.now)
        _ = p.refreshAnswered(.success(F.response(rotated: rotated)))
        return p
    }

    @Test func theAnswerIsVerifiedWithTheCachedKeysAgainstThePresentedToken() {
        var p = make()
        _ = p.start()
        _ = p.loaded(.success(F.record(F.session("RT-1", pending: "RT-2"))), now: F.now)
        #expect(line(p.refreshAnswered(.success(F.response(rotated: "RT-3")))) == "verifyCached(base RT-2)")
    }

    @Test func aVerifiedAnswerIsMadeDurableInOneWriteBeforeItIsUsed() {
        var p = answered()
        #expect(line(p.verified(.verified(F.tokens("B", refresh: "RT-2")))) == "save(session RT-2)")
        #expect(line(p.saved(.success(()))) == "finish(refreshed B)")
    }

    @Test func aVerifiedAnswerTheStoreCannotKeepIsAStorageFailure() {
        var p = answered()
        _ = p.verified(.verified(F.tokens("B", refresh: "RT-2")))
        #expect(line(p.saved(.failure(.ioFailure("EIO")))) == "finish(storageFailed io_failure)")
    }

    @Test func undecidedByTheCacheTheRotatedTokenIsStoredAsPendingBeforeTheKeyFetch() {
        var p = answered()
        #expect(line(p.verified(.undecided)) == "save(session RT-1 pending RT-2)")
        #expect(line(p.saved(.success(()))) == "verifyFetched(base RT-1)")
        #expect(line(p.verified(.verified(F.tokens("B", refresh: "RT-2")))) == "save(session RT-2)")
        #expect(line(p.saved(.success(()))) == "finish(refreshed B)")
    }

    @Test func aPendingTokenTheStoreCannotKeepStopsBeforeTheKeyFetch() {
        var p = answered()
        _ = p.verified(.undecided)
        #expect(line(p.saved(.failure(.noSpace))) == "finish(storageFailed no_space)")
    }

    @Test func undecidedWithoutARotationGoesStraightToTheKeyFetch() {
        var p = answered(rotated: nil)
        #expect(line(p.verified(.undecided)) == "verifyFetched(base RT-1)")
    }

    @Test func aRejectedAnswerWipesTheSessionAndQueuesEveryTokenItTouched() {
        var p = answered()
        #expect(line(p.verified(.rejected(.badSignature))) == "save(no session; revoke RT-1,RT-2)")
        #expect(line(p.saved(.success(()))) == "finish(idTokenRejected bad_signature)")
    }

    @Test func aRejectionStandsEvenWhenTheWipeCannotBeWritten() {
        var p = answered()
        _ = p.verified(.undecided)
        _ = p.saved(.success(()))
        #expect(line(p.verified(.rejected(.subjectMismatch))) == "save(no session; revoke RT-1,RT-2)")
        #expect(line(p.saved(.failure(.noSpace))) == "finish(idTokenRejected sub_mismatch)")
    }

    @Test func keysThatCannotBeFetchedJudgeNothing() {
        var p = answered()
        _ = p.verified(.undecided)
        _ = p.saved(.success(()))
        #expect(line(p.verified(.keysUnavailable(F.unavailable))) == "finish(providerFailed HTTP 503)")
    }
}

/// How a refresh's outcome reaches the machine: retried, failed at once with the session kept, or the end.
@Suite("Refresh failure classification")
struct RefreshFailureClassificationTests {
    typealias F = ProcedureFixtures

    private func classify(_ outcome: RefreshOutcome<PlannedTokens>, attempt: Int = 1) -> RefreshFailure? {
        var random = SeededRandomNumberGenerator(seed: 1)
        return RefreshFailure(outcome, attempt: attempt, policy: .refresh, random: &random)
    }

    @Test func aRefreshedOutcomeIsNoFailure() {
        #expect(classify(.refreshed(F.tokens("B", refresh: "RT-2"))) == nil)
    }

    @Test func whatMayPassIsRetriedUntilThePolicyGivesUp() {
        guard case .transient(_, let delay?)? = classify(.providerFailed(F.unavailable)) else {
            Issue.record("expected a retry")
            return
        }
        #expect(delay <= .seconds(1))
        #expect(classify(.providerFailed(F.unavailable), attempt: 3) == .transient(.provider(F.unavailable), retryIn: nil))
    }

    @Test func aRefusalThatIsNotTheTokensFaultFailsAtOnceAndKeepsTheSession() {
        #expect(classify(.providerFailed(F.forbidden)) == .transient(.provider(F.forbidden), retryIn: nil))
    }

    @Test func theEndsOfASession() {
        #expect(classify(.refreshTokenRejected(F.invalidGrant)) == .rejected(answer: F.invalidGrant))
        #expect(classify(.idTokenRejected(.badSignature)) == .permanent(.verificationFailed(.badSignature)))
        #expect(classify(.storageFailed(.noSpace)) == .permanent(.storage(.noSpace)))
        #expect(classify(.notSignedIn) == .permanent(.notSignedIn))
    }
}

/// One account per store (DESIGN invariant 9): another account's session is neither adopted nor refreshed.
@Suite("Refresh procedure, one account per store")
struct RefreshProcedureAccountTests {
    typealias F = ProcedureFixtures

    @Test func anotherAccountsSessionEndsTheRefreshWithoutARequestOrAWrite() {
        var p = RefreshProcedure<PlannedTokens>(
            previous: F.session("RT-1"), forJournaledOperation: false, timing: RefreshTiming(leadTime: .seconds(Int(F.lead))))
        _ = p.start()
        #expect(line(p.loaded(.success(F.record(F.session("RT-9", rotation: 3, subject: "bob"))), now: F.now)) == "finish(anotherAccount)")
    }

    @Test func aMergeClaimLinkingTheTwoIsTheSameAccount() {
        var merged = F.session("RT-2", rotation: 1, subject: "alice-new")
        merged.canonicalSubject = "alice-new"
        merged.linkedSubjects = ["alice"]
        #expect(OneAccountPerStore.sameAccount(merged, F.session("RT-1")))
        var canonical = F.session("RT-2", rotation: 1, subject: "alice-device")
        canonical.canonicalSubject = "alice"
        #expect(OneAccountPerStore.sameAccount(canonical, F.session("RT-1")))
        #expect(!OneAccountPerStore.sameAccount(F.session("RT-2", subject: "bob"), F.session("RT-1")))
        var otherIssuer = F.session("RT-2")
        otherIssuer.issuer = "https://other.example"
        #expect(!OneAccountPerStore.sameAccount(otherIssuer, F.session("RT-1")))
    }
}
