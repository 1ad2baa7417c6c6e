#ifndef SESSIONKIT_SECRET_RUNTIME_H
#define SESSIONKIT_SECRET_RUNTIME_H

#include <stddef.h>

// The desktop keyring (freedesktop Secret Service) through libsecret, loaded when first needed
// with dlopen, so the library links against nothing beyond the C library: a machine without
// libsecret-1.so.0 simply has no keyring. Every item has the schema "SessionKit.Credential" and
// is found by its two string attributes, service and account.
//
// The calls block on D-Bus: run them off any thread pool that must not block. A failure writes a
// message (libsecret's or GLib's, which never holds an item's value) into `message`, at most
// `capacity` bytes with the terminating NUL.

/// What a keyring call came to.
typedef enum {
    /// It worked (for a lookup: the item was found, or there was none).
    SESSIONKIT_SECRET_OK = 0,
    /// The keyring refused: locked, access denied, or the person dismissed the unlock prompt.
    SESSIONKIT_SECRET_DENIED = 1,
    /// Any other failure.
    SESSIONKIT_SECRET_FAILED = 2,
    /// libsecret could not be loaded.
    SESSIONKIT_SECRET_UNAVAILABLE = 3,
} sessionkit_secret_status;

/// Loads libsecret once; SESSIONKIT_SECRET_OK when it and every symbol used are there.
sessionkit_secret_status sessionkit_secret_runtime_load(char *message, size_t capacity);

/// SESSIONKIT_SECRET_OK when a Secret Service answers on the session bus and has a default collection.
sessionkit_secret_status sessionkit_secret_runtime_probe(char *message, size_t capacity);

/// Creates or replaces the item (service, account) in the default collection, in one call.
sessionkit_secret_status sessionkit_secret_runtime_store(
    const char *service, const char *account, const char *label, const unsigned char *bytes, size_t length, char *message,
    size_t capacity);

/// Looks the item up. On SESSIONKIT_SECRET_OK, `*value` is the item's value (release it with
/// sessionkit_secret_runtime_release), or NULL when there is no such item.
sessionkit_secret_status sessionkit_secret_runtime_lookup(
    const char *service, const char *account, void **value, char *message, size_t capacity);

/// The bytes of a looked-up value; valid until it is released.
const unsigned char *sessionkit_secret_runtime_bytes(void *value, size_t *length);

/// Releases a looked-up value (libsecret keeps it in memory it wipes).
void sessionkit_secret_runtime_release(void *value);

/// Deletes the item; a missing item is no failure.
sessionkit_secret_status sessionkit_secret_runtime_clear(const char *service, const char *account, char *message, size_t capacity);

#endif
