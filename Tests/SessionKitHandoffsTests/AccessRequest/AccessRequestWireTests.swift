import SessionKitJOSE
import Testing

@testable import SessionKitHandoffs

@Suite struct AccessRequestWireTests {
    @Test func typeIdentifiersAreTheProtocols() {
        #expect(AccessRequest.typeIdentifier == "com.1password.access-request")
        #expect(AccessGrant.typeIdentifier == "com.1password.access-grant")
        #expect(AccessRequest.conformsToTypeIdentifier == "public.json")
    }

    @Test func requestIsVersionOneWithTheReference() throws {
        let request = AccessRequest(reference: AccessRequestReference("ref-123"))
        #expect(String(decoding: request.jsonBytes(), as: UTF8.self) == #"{"version":1,"accessRequestReference":"ref-123"}"#)
    }

    @Test(arguments: [
        Fixtures.reference, "plain", "with\nnewline and \u{0007} bell", "unicode \u{00E9}\u{4E2D}\u{1F600}", "</script>&<>",
        String(repeating: "long", count: 5000),
    ])
    func referenceTravelsUnchanged(_ reference: String) throws {
        let bytes = AccessRequest(reference: AccessRequestReference(reference)).jsonBytes()
        let object = try JSONParser.parseObject(bytes)
        #expect(object["accessRequestReference"] == .string(reference))
        #expect(object["version"] == .number(1))
        #expect(object.count == 2)
    }
}
