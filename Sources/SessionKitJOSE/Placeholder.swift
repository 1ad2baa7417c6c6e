/// Placeholder replaced by the JOSE layer.
enum JOSEPlaceholder {}
