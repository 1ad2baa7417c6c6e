// Decoders of the credential types that consist of editable fields only.

extension CXFReader {
    mutating func decodeAddressCredential(_ fields: JSONFields) throws(JSONFieldProblem) -> CXFAddressCredential {
        CXFAddressCredential(
            streetAddress: try field(fields, "streetAddress", expected: .string),
            postalCode: try field(fields, "postalCode", expected: .string), city: try field(fields, "city", expected: .string),
            territory: try field(fields, "territory", expected: .subdivisionCode),
            country: try field(fields, "country", expected: .countryCode), telephone: try field(fields, "tel", expected: .string))
    }

    mutating func decodeAPIKeyCredential(_ fields: JSONFields) throws(JSONFieldProblem) -> CXFAPIKeyCredential {
        CXFAPIKeyCredential(
            key: try secretField(fields, "key", expected: .concealedString), username: try field(fields, "username", expected: .string),
            keyType: try field(fields, "keyType", expected: .string), url: try field(fields, "url", expected: .string),
            validFrom: try field(fields, "validFrom", expected: .date), expiryDate: try field(fields, "expiryDate", expected: .date))
    }

    mutating func decodeCreditCardCredential(_ fields: JSONFields) throws(JSONFieldProblem) -> CXFCreditCardCredential {
        CXFCreditCardCredential(
            number: try secretField(fields, "number", expected: .concealedString),
            fullName: try field(fields, "fullName", expected: .string), cardType: try field(fields, "cardType", expected: .string),
            verificationNumber: try secretField(fields, "verificationNumber", expected: .concealedString),
            pin: try secretField(fields, "pin", expected: .concealedString),
            expiryDate: try field(fields, "expiryDate", expected: .yearMonth),
            validFrom: try field(fields, "validFrom", expected: .yearMonth))
    }

    mutating func decodeDriversLicenseCredential(_ fields: JSONFields) throws(JSONFieldProblem) -> CXFDriversLicenseCredential {
        CXFDriversLicenseCredential(
            fullName: try field(fields, "fullName", expected: .string), birthDate: try field(fields, "birthDate", expected: .date),
            issueDate: try field(fields, "issueDate", expected: .date), expiryDate: try field(fields, "expiryDate", expected: .date),
            issuingAuthority: try field(fields, "issuingAuthority", expected: .string),
            territory: try field(fields, "territory", expected: .subdivisionCode),
            country: try field(fields, "country", expected: .countryCode),
            licenseNumber: try secretField(fields, "licenseNumber", expected: .string),
            licenseClass: try field(fields, "licenseClass", expected: .string))
    }

    mutating func decodeIdentityDocumentCredential(_ fields: JSONFields) throws(JSONFieldProblem) -> CXFIdentityDocumentCredential {
        CXFIdentityDocumentCredential(
            issuingCountry: try field(fields, "issuingCountry", expected: .countryCode),
            documentNumber: try secretField(fields, "documentNumber", expected: .string),
            identificationNumber: try secretField(fields, "identificationNumber", expected: .string),
            nationality: try field(fields, "nationality", expected: .string), fullName: try field(fields, "fullName", expected: .string),
            birthDate: try field(fields, "birthDate", expected: .date), birthPlace: try field(fields, "birthPlace", expected: .string),
            sex: try field(fields, "sex", expected: .string), issueDate: try field(fields, "issueDate", expected: .date),
            expiryDate: try field(fields, "expiryDate", expected: .date),
            issuingAuthority: try field(fields, "issuingAuthority", expected: .string))
    }

    mutating func decodePassportCredential(_ fields: JSONFields) throws(JSONFieldProblem) -> CXFPassportCredential {
        CXFPassportCredential(
            issuingCountry: try field(fields, "issuingCountry", expected: .countryCode),
            passportType: try field(fields, "passportType", expected: .string),
            passportNumber: try secretField(fields, "passportNumber", expected: .string),
            nationalIdentificationNumber: try secretField(fields, "nationalIdentificationNumber", expected: .string),
            nationality: try field(fields, "nationality", expected: .string), fullName: try field(fields, "fullName", expected: .string),
            birthDate: try field(fields, "birthDate", expected: .date), birthPlace: try field(fields, "birthPlace", expected: .string),
            sex: try field(fields, "sex", expected: .string), issueDate: try field(fields, "issueDate", expected: .date),
            expiryDate: try field(fields, "expiryDate", expected: .date),
            issuingAuthority: try field(fields, "issuingAuthority", expected: .string))
    }

    mutating func decodePersonNameCredential(_ fields: JSONFields) throws(JSONFieldProblem) -> CXFPersonNameCredential {
        CXFPersonNameCredential(
            title: try field(fields, "title", expected: .string), given: try field(fields, "given", expected: .string),
            givenInformal: try field(fields, "givenInformal", expected: .string), given2: try field(fields, "given2", expected: .string),
            surnamePrefix: try field(fields, "surnamePrefix", expected: .string), surname: try field(fields, "surname", expected: .string),
            surname2: try field(fields, "surname2", expected: .string), credentials: try field(fields, "credentials", expected: .string),
            generation: try field(fields, "generation", expected: .string))
    }

    mutating func decodeWiFiCredential(_ fields: JSONFields) throws(JSONFieldProblem) -> CXFWiFiCredential {
        CXFWiFiCredential(
            ssid: try field(fields, "ssid", expected: .string),
            networkSecurityType: try field(fields, "networkSecurityType", expected: .wifiNetworkSecurityType),
            passphrase: try secretField(fields, "passphrase", expected: .concealedString),
            hidden: try field(fields, "hidden", expected: .boolean))
    }
}
