enum TestingPlaceholder {}
