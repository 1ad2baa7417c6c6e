import Foundation
package import SessionKitCore

/// Turns records into sealed ``StoreEnvelope`` bytes and back; shared by the file, Keychain and
/// Secret Service stores.
///
/// The payload is the records' own `Codable` form as JSON with sorted keys. A checked-in
/// schema-1 fixture in the tests pins that form, so a change to the record types that would make
/// existing stores unreadable fails a test instead of signing users out.
package enum StoredPayloadCodec {
    /// The schema version of ``DeviceCredential`` payloads this build writes.
    package static let deviceSchemaVersion = 1
    /// The schema version of ``GuestCredential`` payloads this build writes.
    package static let guestSchemaVersion = 1
    /// The schema version of ``ClientRegistration`` payloads this build writes.
    package static let registrationSchemaVersion = 1

    package static func seal(_ record: CredentialRecord) throws(CredentialStoreError) -> [UInt8] {
        StoreEnvelope.seal(
            try encode(record, noun: StoreEnvelope.Kind.credentials.noun), kind: .credentials,
            schemaVersion: record.schemaVersion)
    }

    package static func openRecord(_ bytes: [UInt8]) throws(CredentialStoreError) -> CredentialRecord {
        let kind = StoreEnvelope.Kind.credentials
        let (_, payload) = try StoreEnvelope.open(bytes, kind: kind, supportedVersion: CredentialRecord.currentSchemaVersion)
        return try decode(CredentialRecord.self, from: payload, noun: kind.noun)
    }

    package static func seal(_ device: DeviceCredential) throws(CredentialStoreError) -> [UInt8] {
        StoreEnvelope.seal(
            try encode(device, noun: StoreEnvelope.Kind.device.noun), kind: .device, schemaVersion: deviceSchemaVersion)
    }

    package static func openDevice(_ bytes: [UInt8]) throws(CredentialStoreError) -> DeviceCredential {
        let kind = StoreEnvelope.Kind.device
        let (_, payload) = try StoreEnvelope.open(bytes, kind: kind, supportedVersion: deviceSchemaVersion)
        return try decode(DeviceCredential.self, from: payload, noun: kind.noun)
    }

    package static func seal(_ guest: GuestCredential) throws(CredentialStoreError) -> [UInt8] {
        StoreEnvelope.seal(
            try encode(guest, noun: StoreEnvelope.Kind.guest.noun), kind: .guest, schemaVersion: guestSchemaVersion)
    }

    package static func openGuest(_ bytes: [UInt8]) throws(CredentialStoreError) -> GuestCredential {
        let kind = StoreEnvelope.Kind.guest
        let (_, payload) = try StoreEnvelope.open(bytes, kind: kind, supportedVersion: guestSchemaVersion)
        return try decode(GuestCredential.self, from: payload, noun: kind.noun)
    }

    package static func seal(_ registration: ClientRegistration) throws(CredentialStoreError) -> [UInt8] {
        StoreEnvelope.seal(
            try encode(registration, noun: StoreEnvelope.Kind.registration.noun), kind: .registration,
            schemaVersion: registrationSchemaVersion)
    }

    package static func openRegistration(_ bytes: [UInt8]) throws(CredentialStoreError) -> ClientRegistration {
        let kind = StoreEnvelope.Kind.registration
        let (_, payload) = try StoreEnvelope.open(bytes, kind: kind, supportedVersion: registrationSchemaVersion)
        return try decode(ClientRegistration.self, from: payload, noun: kind.noun)
    }

    private static func encode(_ value: some Encodable, noun: String) throws(CredentialStoreError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return Array(try encoder.encode(value))
        } catch {
            // The encoder's message could quote a value; name the record only.
            throw .ioFailure("the \(noun) could not be encoded")
        }
    }

    private static func decode<Value: Decodable>(
        _ type: Value.Type, from payload: ArraySlice<UInt8>, noun: String
    ) throws(CredentialStoreError) -> Value {
        do {
            return try JSONDecoder().decode(type, from: Data(payload))
        } catch {
            // The checksum matched, so the bytes are what was written: a payload this build cannot
            // decode is a schema problem, reported without the decoder's text (it may quote values).
            throw .corrupted("the \(noun) payload does not match its schema")
        }
    }
}
