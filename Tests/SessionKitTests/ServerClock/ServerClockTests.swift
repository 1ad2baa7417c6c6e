import Foundation
import Testing

@testable import SessionKit

/// The provider's clock as its `Date` headers tell it: the IMF-fixdate reader and the bounded
/// estimate.
@Suite("Server clock")
struct ServerClockTests {
    @Test("IMF-fixdate is read to the second, and written back the same")
    func imfFixdate() {
        #expect(HTTPDate.secondsSince1970("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.secondsSince1970("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(HTTPDate.secondsSince1970("Tue, 29 Feb 2000 23:59:59 GMT") == 951_868_799)
        #expect(HTTPDate.secondsSince1970("Wed, 31 Dec 1969 23:59:59 GMT") == -1)
        #expect(HTTPDate.format(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(secondsSince1970: -1) == "Wed, 31 Dec 1969 23:59:59 GMT")
        // Every day of four centuries, at a varying time of day, reads back as written.
        var seconds: Int64 = -2_208_988_800  // 1900-01-01
        while seconds < 10_413_792_000 {  // 2300-01-01
            let text = HTTPDate.format(secondsSince1970: seconds)
            #expect(HTTPDate.secondsSince1970(text) == seconds, "\(text)")
            seconds += 86_400 + 3_607
        }
    }

    @Test(
        "anything but a well-formed IMF-fixdate is ignored",
        arguments: [
            "", "Sun, 06 Nov 1994 08:49:37 UTC", "Mon, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT", "Thu, 30 Feb 2023 08:00:00 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT ", " Sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:4a:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMTX",
        ])
    func malformedDates(_ text: String) {
        #expect(HTTPDate.secondsSince1970(text) == nil)
    }

    private static func date(_ seconds: Int64) -> String { HTTPDate.format(secondsSince1970: seconds) }

    @Test("the offset is the provider's time minus the device's at the request's midpoint, within the bound")
    func estimate() throws {
        let clock = ServerClock(bound: .seconds(3600))
        #expect(clock.latestEstimate == nil)
        #expect(clock.offset == 0)
        let device = Date(timeIntervalSince1970: 1_700_000_000)
        // The device is ten minutes behind the provider; the request took two seconds.
        let estimate = try #require(
            clock.record(dateHeader: Self.date(1_700_000_601), sentAt: device, receivedAt: device.addingTimeInterval(2)))
        #expect(estimate.offset == 600.5)
        #expect(estimate.isApplied)
        #expect(clock.offset == 600.5)
        #expect(clock.serverTime(at: device) == device.addingTimeInterval(600.5))

        // Ten minutes ahead.
        clock.record(dateHeader: Self.date(1_699_999_400), sentAt: device, receivedAt: device)
        #expect(clock.offset == -599.5)

        // A header the measurement cannot tell from the device's time is no offset.
        clock.record(dateHeader: Self.date(1_700_000_001), sentAt: device, receivedAt: device.addingTimeInterval(2))
        #expect(clock.offset == 0)
        #expect(clock.latestEstimate?.isApplied == true)

        // Unparsable: ignored, the estimate kept.
        clock.record(dateHeader: Self.date(1_700_000_300), sentAt: device, receivedAt: device)
        #expect(clock.record(dateHeader: "yesterday", sentAt: device, receivedAt: device) == nil)
        #expect(clock.record(dateHeader: nil, sentAt: device, receivedAt: device) == nil)
        #expect(clock.offset == 300.5)
    }

    @Test("an estimate beyond the bound is reported and not used")
    func beyondTheBound() throws {
        let clock = ServerClock(bound: .seconds(3600))
        let device = Date(timeIntervalSince1970: 1_700_000_000)
        clock.record(dateHeader: Self.date(1_700_000_600), sentAt: device, receivedAt: device)
        clock.record(dateHeader: Self.date(1_700_007_200), sentAt: device, receivedAt: device)
        let estimate = try #require(clock.latestEstimate)
        #expect(estimate.offset == 7200.5)
        #expect(!estimate.isApplied)
        #expect(clock.offset == 0)
        #expect(clock.serverTime(at: device) == device)
        #expect(clock.description.contains("not applied"))
    }
}
