public import SessionKitJOSE

extension IDTokenExpectations {
    /// These expectations with the checks `options` ask of the returned id_token: `max_age`
    /// (`auth_time` required and recent enough) and essential `acr` values. Use it for the id_token
    /// of the sign-in the options were sent with, never for a refresh.
    public func requiring(_ options: AuthorizationRequestOptions) -> IDTokenExpectations {
        var expectations = self
        expectations.maxAge = options.maxAgeToCheck
        expectations.requiredACRValues = options.essentialACRValues
        return expectations
    }
}
