import Foundation
import Testing

@testable import SessionKit

/// Every branch of one guest bootstrap, one input per line.
@Suite("Guest bootstrap procedure")
struct GuestBootstrapProcedureTests {
    typealias Procedure = GuestBootstrapProcedure
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func make(name: String? = nil) -> Procedure {
        Procedure(freshDeviceID: "dev-new", deviceName: name, fallbackLifetime: 300)
    }

    private static func stored(_ id: String = "dev-1", secret: String? = "S-1") -> GuestCredential {
        GuestCredential(deviceID: id, deviceSecret: secret.map(Secret.init))
    }

    private static func issued(
        key: String = "K-1", expiresIn: Int? = 3600, secret: String? = nil, user: String = "7"
    ) -> ProviderClient.AnonymousBootstrapAnswer {
        .issued(
            AnonymousBootstrapResponse(
                accessToken: Secret(key), expiresIn: expiresIn, deviceSecret: secret.map(Secret.init),
                user: .init(id: user, isAnonymous: true, nickname: nil)))
    }

    /// The step as one line; secrets by their (test-only) value so a test can say which is sent.
    private func line(_ step: Procedure.Step) -> String {
        func credential(_ device: String, _ secret: Secret?) -> String {
            "\(device), " + (secret.map { "secret \($0.value)" } ?? "no secret")
        }
        switch step {
        case .load: return "load"
        case .save(let stored): return "save(\(credential(stored.deviceID, stored.deviceSecret)))"
        case .bootstrap(let request):
            return "bootstrap(\(credential(request.deviceID, request.deviceSecret))\(request.deviceName.map { ", name \($0)" } ?? ""))"
        case .finish(.success(let tokens)):
            let seconds = Int(tokens.accessToken.expiresAt.timeIntervalSince(Self.now))
            return
                "finish(key \(tokens.accessToken.secret.value) for user \(tokens.user.id), \(seconds) s\(tokens.startedOver ? ", started over" : ""))"
        case .finish(.failure(let error)): return "finish(\(error))"
        }
    }

    // MARK: The first bootstrap

    @Test func aNewDeviceStoresItsIDBeforeSendingItThenStoresTheSecretBeforeTheKeyIsUsed() {
        var p = make()
        #expect(line(p.start()) == "load")
        #expect(line(p.loaded(.success(nil))) == "save(dev-new, no secret)")
        #expect(line(p.saved(.success(()))) == "bootstrap(dev-new, no secret)")
        #expect(line(p.answered(Self.issued(secret: "S-9"), now: Self.now)) == "save(dev-new, secret S-9)")
        #expect(line(p.saved(.success(()))) == "finish(key K-1 for user 7, 3600 s)")
    }

    @Test func aSecretThatCannotBeStoredMeansTheKeyIsNotHandedOut() {
        var p = make()
        _ = p.start()
        _ = p.loaded(.success(nil))
        _ = p.saved(.success(()))
        _ = p.answered(Self.issued(secret: "S-9"), now: Self.now)
        #expect(line(p.saved(.failure(.noSpace))) == "finish(guest credential storage failure: noSpace)")
    }

    @Test func aDeviceIDThatCannotBeStoredIsNeverSent() {
        var p = make()
        _ = p.start()
        _ = p.loaded(.success(nil))
        #expect(line(p.saved(.failure(.permissionDenied("read-only")))).hasPrefix("finish(guest credential storage failure"))
    }

    @Test func anUnreadableStoreFailsWithoutARequest() {
        var p = make()
        _ = p.start()
        #expect(line(p.loaded(.failure(.corrupted("checksum")))).hasPrefix("finish(guest credential storage failure: corrupted"))
    }

    @Test func theDeviceNameTravelsWithEveryRequest() {
        var p = make(name: "Ada's iPad")
        _ = p.start()
        #expect(line(p.loaded(.success(Self.stored()))) == "bootstrap(dev-1, secret S-1, name Ada's iPad)")
    }

    // MARK: Renewal with the stored secret

    @Test func theStoredSecretIsPresentedAndAnAnswerWithoutANewSecretWritesNothing() {
        var p = make()
        _ = p.start()
        #expect(line(p.loaded(.success(Self.stored()))) == "bootstrap(dev-1, secret S-1)")
        #expect(line(p.answered(Self.issued(key: "K-2"), now: Self.now)) == "finish(key K-2 for user 7, 3600 s)")
    }

    @Test func theSameSecretAnsweredAgainWritesNothing() {
        var p = make()
        _ = p.start()
        _ = p.loaded(.success(Self.stored()))
        #expect(line(p.answered(Self.issued(secret: "S-1"), now: Self.now)) == "finish(key K-1 for user 7, 3600 s)")
    }

    @Test func withoutExpiresInTheFallbackLifetimeApplies() {
        var p = make()
        _ = p.start()
        _ = p.loaded(.success(Self.stored()))
        #expect(line(p.answered(Self.issued(expiresIn: nil), now: Self.now)) == "finish(key K-1 for user 7, 300 s)")
    }

    @Test func aStoredCredentialWithAnEmptyIDIsReplacedByAFreshDevice() {
        var p = make()
        _ = p.start()
        #expect(line(p.loaded(.success(Self.stored("", secret: nil)))) == "save(dev-new, no secret)")
    }

    // MARK: The recovery rule

    @Test func aRefusedSecretIsDroppedDurablyAndTheDeviceBootstrapsAfreshOnce() {
        var p = make()
        _ = p.start()
        _ = p.loaded(.success(Self.stored()))
        #expect(line(p.answered(.invalidDeviceSecret, now: Self.now)) == "save(dev-1, no secret)")
        #expect(line(p.saved(.success(()))) == "bootstrap(dev-1, no secret)")
        #expect(line(p.answered(Self.issued(secret: "S-2", user: "8"), now: Self.now)) == "save(dev-1, secret S-2)")
        #expect(line(p.saved(.success(()))) == "finish(key K-1 for user 8, 3600 s, started over)")
    }

    @Test func aSecondRefusalIsATypedErrorNotAThirdRequest() {
        var p = make()
        _ = p.start()
        _ = p.loaded(.success(Self.stored()))
        _ = p.answered(.invalidDeviceSecret, now: Self.now)
        _ = p.saved(.success(()))
        #expect(p.answered(.invalidDeviceSecret, now: Self.now) == .finish(.failure(.invalidDeviceSecret)))
    }

    @Test func aRefusalOfARequestWithoutASecretIsNotRetried() {
        var p = make()
        _ = p.start()
        _ = p.loaded(.success(Self.stored(secret: nil)))
        #expect(p.answered(.invalidDeviceSecret, now: Self.now) == .finish(.failure(.invalidDeviceSecret)))
    }

    @Test func aDropThatCannotBeStoredEndsWithoutTheFreshRequest() {
        var p = make()
        _ = p.start()
        _ = p.loaded(.success(Self.stored()))
        _ = p.answered(.invalidDeviceSecret, now: Self.now)
        #expect(line(p.saved(.failure(.noSpace))) == "finish(guest credential storage failure: noSpace)")
    }

    // MARK: Other answers

    @Test func otherFailuresEndTheProcedureAsTheyCame() {
        for failure in [
            AnonymousBootstrapError.unavailable(status: 503, retryAfter: .seconds(5)), .transport(.timedOut),
            .rejected(status: 400, error: "invalid_request"), .malformedResponse("user is missing or not an object"),
        ] {
            var p = make()
            _ = p.start()
            _ = p.loaded(.success(Self.stored()))
            #expect(p.answered(.failed(failure), now: Self.now) == .finish(.failure(failure)))
        }
    }
}
