/// The `IMF-fixdate` form of an HTTP date (RFC 9110 §5.6.7), e.g. `Sun, 06 Nov 1994 08:49:37 GMT`,
/// read strictly: exactly 29 bytes, the day name agreeing with the date, a real calendar day and a
/// time of day no later than `23:59:60`. The obsolete RFC 850 and asctime forms, which a recipient
/// may accept, are not read: a `Date` header in any other form is ignored, never guessed at.
package enum HTTPDate {
    private static let dayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Seconds since 1970-01-01T00:00:00Z, or nil when `text` is not an IMF-fixdate. A leap
    /// second (`:60`) reads as the first second of the next minute.
    package static func secondsSince1970(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == 0x20, bytes[7] == 0x20, bytes[11] == 0x20,
            bytes[16] == 0x20, bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"), bytes[25] == 0x20,
            bytes[26...28].elementsEqual("GMT".utf8),
            let dayName = dayNames.firstIndex(where: { $0.utf8.elementsEqual(bytes[0..<3]) }),
            let month = monthNames.firstIndex(where: { $0.utf8.elementsEqual(bytes[8..<11]) }),
            let day = digits(bytes[5..<7]), let year = digits(bytes[12..<16]), let hour = digits(bytes[17..<19]),
            let minute = digits(bytes[20..<22]), let second = digits(bytes[23..<25])
        else { return nil }
        guard day >= 1, day <= daysIn(month: month + 1, year: year), hour <= 23, minute <= 59, second <= 60 else { return nil }
        let days = daysSince1970(year: year, month: month + 1, day: day)
        // 1970-01-01 was a Thursday (index 3 with Monday as 0).
        guard ((days % 7 + 7 + 3) % 7) == Int64(dayName) else { return nil }
        return days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// The IMF-fixdate of `seconds` since 1970, for a server's `Date` header.
    package static func format(secondsSince1970 seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = civil(daysSince1970: days)
        let weekday = Int((days % 7 + 7 + 3) % 7)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(year)
        let paddedYear = String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText
        return dayNames[weekday] + ", " + two(day) + " " + monthNames[month - 1] + " " + paddedYear + " " + two(secondOfDay / 3600) + ":"
            + two(secondOfDay / 60 % 60) + ":" + two(secondOfDay % 60) + " GMT"
    }

    private static func digits(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the given day of the proleptic Gregorian calendar, counted in
    /// 400-year eras that start on 1 March so February's length falls at the end of a year.
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int64 {
        let shiftedYear = Int64(month <= 2 ? year - 1 : year)
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = Int64((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1)
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse of ``daysSince1970(year:month:day:)``.
    private static func civil(daysSince1970 days: Int64) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
        let month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
        let year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}
