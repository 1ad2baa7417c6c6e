#ifndef SESSIONKIT_SECRET_SHIM_H
#define SESSIONKIT_SECRET_SHIM_H

// The few libsecret calls SessionKitSecretService makes, as plain functions: libsecret's own
// entry points are variadic or take GLib hash tables and macros, which Swift cannot call directly.
// Every item has the schema below and is found by its two attributes, service and account.

#include <libsecret/secret.h>

static inline const SecretSchema *sessionkit_secret_schema(void) {
    static const SecretSchema schema = {
        "SessionKit.Credential",
        SECRET_SCHEMA_NONE,
        {
            {"service", SECRET_SCHEMA_ATTRIBUTE_STRING},
            {"account", SECRET_SCHEMA_ATTRIBUTE_STRING},
            {NULL, 0},
        },
    };
    return &schema;
}

static inline GHashTable *sessionkit_secret_attributes(const char *service, const char *account) {
    GHashTable *attributes = g_hash_table_new(g_str_hash, g_str_equal);
    g_hash_table_insert(attributes, (gpointer) "service", (gpointer) service);
    g_hash_table_insert(attributes, (gpointer) "account", (gpointer) account);
    return attributes;
}

/// Creates or replaces the item (service, account) in the default collection, in one call.
static inline gboolean sessionkit_secret_store(
    const char *service, const char *account, const char *label, const unsigned char *bytes, size_t length, GError **error) {
    GHashTable *attributes = sessionkit_secret_attributes(service, account);
    SecretValue *value = secret_value_new((const gchar *) bytes, (gssize) length, "application/octet-stream");
    gboolean stored = secret_password_storev_binary_sync(
        sessionkit_secret_schema(), attributes, SECRET_COLLECTION_DEFAULT, label, value, NULL, error);
    secret_value_unref(value);
    g_hash_table_unref(attributes);
    return stored;
}

/// The item's value (release it with secret_value_unref), or NULL: with *error set on failure,
/// with *error NULL when there is no such item.
static inline SecretValue *sessionkit_secret_lookup(const char *service, const char *account, GError **error) {
    GHashTable *attributes = sessionkit_secret_attributes(service, account);
    SecretValue *value = secret_password_lookupv_binary_sync(sessionkit_secret_schema(), attributes, NULL, error);
    g_hash_table_unref(attributes);
    return value;
}

static inline const unsigned char *sessionkit_secret_value_bytes(SecretValue *value, size_t *length) {
    gsize size = 0;
    const gchar *bytes = secret_value_get(value, &size);
    *length = (size_t) size;
    return (const unsigned char *) bytes;
}

/// Deletes the item; FALSE with *error NULL when there was none.
static inline gboolean sessionkit_secret_clear(const char *service, const char *account, GError **error) {
    GHashTable *attributes = sessionkit_secret_attributes(service, account);
    gboolean cleared = secret_password_clearv_sync(sessionkit_secret_schema(), attributes, NULL, error);
    g_hash_table_unref(attributes);
    return cleared;
}

/// TRUE when a Secret Service answers on the session bus and has a default collection.
static inline gboolean sessionkit_secret_service_has_default_collection(GError **error) {
    SecretService *service = secret_service_get_sync(SECRET_SERVICE_NONE, NULL, error);
    if (service == NULL) return FALSE;
    SecretCollection *collection = secret_collection_for_alias_sync(
        service, SECRET_COLLECTION_DEFAULT, SECRET_COLLECTION_NONE, NULL, error);
    g_object_unref(service);
    if (collection == NULL) return FALSE;
    g_object_unref(collection);
    return TRUE;
}

static inline GQuark sessionkit_secret_error_domain(void) { return SECRET_ERROR; }
static inline GQuark sessionkit_dbus_error_domain(void) { return G_DBUS_ERROR; }
static inline GQuark sessionkit_io_error_domain(void) { return G_IO_ERROR; }

#endif
