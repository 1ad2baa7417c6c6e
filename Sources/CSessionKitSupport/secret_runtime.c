#include "sessionkit_secret_runtime.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

// libsecret's and GLib's public types, as their headers lay them out (libsecret 0.18+, GLib 2.x);
// only what the calls below pass or read. Declared here so that no header is needed to build.
typedef struct {
    uint32_t domain;
    int code;
    char *message;
} sk_gerror;

typedef struct {
    const char *name;
    int type; // SecretSchemaAttributeType: 0 is SECRET_SCHEMA_ATTRIBUTE_STRING
} sk_schema_attribute;

typedef struct {
    const char *name;
    int flags; // SecretSchemaFlags: 0 is SECRET_SCHEMA_NONE (the schema name is matched)
    sk_schema_attribute attributes[32];
    int reserved;
    void *reserved1, *reserved2, *reserved3, *reserved4, *reserved5, *reserved6, *reserved7;
} sk_schema;

typedef void sk_hash_table;
typedef unsigned int (*sk_hash_func)(const void *);
typedef int (*sk_equal_func)(const void *, const void *);

// Error codes of the domains the failures are classified by.
enum { SK_SECRET_ERROR_IS_LOCKED = 2, SK_DBUS_ERROR_ACCESS_DENIED = 9, SK_IO_ERROR_CANCELLED = 19 };

static struct {
    void *handle;
    char failure[256];
    sk_hash_table *(*hash_table_new)(sk_hash_func, sk_equal_func);
    int (*hash_table_insert)(sk_hash_table *, void *, void *);
    void (*hash_table_unref)(sk_hash_table *);
    sk_hash_func str_hash;
    sk_equal_func str_equal;
    void (*error_free)(sk_gerror *);
    void (*object_unref)(void *);
    uint32_t (*secret_error_quark)(void);
    uint32_t (*dbus_error_quark)(void);
    uint32_t (*io_error_quark)(void);
    void *(*value_new)(const char *, long, const char *);
    const char *(*value_get)(void *, size_t *);
    void (*value_unref)(void *);
    int (*store)(const sk_schema *, sk_hash_table *, const char *, const char *, void *, void *, sk_gerror **);
    void *(*lookup)(const sk_schema *, sk_hash_table *, void *, sk_gerror **);
    int (*clear)(const sk_schema *, sk_hash_table *, void *, sk_gerror **);
    void *(*service_get)(int, void *, sk_gerror **);
    void *(*collection_for_alias)(void *, const char *, int, void *, sk_gerror **);
} sk;

static pthread_once_t sk_once = PTHREAD_ONCE_INIT;

static const sk_schema sk_credential_schema = {
    "SessionKit.Credential",
    0,
    {{"service", 0}, {"account", 0}, {NULL, 0}},
    0, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};

static void *sk_symbol(const char *name) {
    void *symbol = dlsym(sk.handle, name);
    if (symbol == NULL && sk.failure[0] == 0) {
        snprintf(sk.failure, sizeof sk.failure, "libsecret-1.so.0 lacks %s", name);
    }
    return symbol;
}

static void sk_load(void) {
    sk.handle = dlopen("libsecret-1.so.0", RTLD_NOW | RTLD_LOCAL);
    if (sk.handle == NULL) {
        const char *reason = dlerror();
        snprintf(sk.failure, sizeof sk.failure, "libsecret is not installed (%s)", reason ? reason : "libsecret-1.so.0 not found");
        return;
    }
    // The GLib symbols resolve through libsecret's own dependencies.
    *(void **)&sk.hash_table_new = sk_symbol("g_hash_table_new");
    *(void **)&sk.hash_table_insert = sk_symbol("g_hash_table_insert");
    *(void **)&sk.hash_table_unref = sk_symbol("g_hash_table_unref");
    *(void **)&sk.str_hash = sk_symbol("g_str_hash");
    *(void **)&sk.str_equal = sk_symbol("g_str_equal");
    *(void **)&sk.error_free = sk_symbol("g_error_free");
    *(void **)&sk.object_unref = sk_symbol("g_object_unref");
    *(void **)&sk.secret_error_quark = sk_symbol("secret_error_get_quark");
    *(void **)&sk.dbus_error_quark = sk_symbol("g_dbus_error_quark");
    *(void **)&sk.io_error_quark = sk_symbol("g_io_error_quark");
    *(void **)&sk.value_new = sk_symbol("secret_value_new");
    *(void **)&sk.value_get = sk_symbol("secret_value_get");
    *(void **)&sk.value_unref = sk_symbol("secret_value_unref");
    *(void **)&sk.store = sk_symbol("secret_password_storev_binary_sync");
    *(void **)&sk.lookup = sk_symbol("secret_password_lookupv_binary_sync");
    *(void **)&sk.clear = sk_symbol("secret_password_clearv_sync");
    *(void **)&sk.service_get = sk_symbol("secret_service_get_sync");
    *(void **)&sk.collection_for_alias = sk_symbol("secret_collection_for_alias_sync");
}

static void sk_write(char *message, size_t capacity, const char *text) {
    if (message != NULL && capacity > 0) snprintf(message, capacity, "%s", text);
}

sessionkit_secret_status sessionkit_secret_runtime_load(char *message, size_t capacity) {
    pthread_once(&sk_once, sk_load);
    if (sk.failure[0] != 0) {
        sk_write(message, capacity, sk.failure);
        return SESSIONKIT_SECRET_UNAVAILABLE;
    }
    return SESSIONKIT_SECRET_OK;
}

/// Classifies and frees `error`; with no error, a generic failure.
static sessionkit_secret_status sk_failure(sk_gerror *error, char *message, size_t capacity) {
    if (error == NULL) {
        sk_write(message, capacity, "the Secret Service call failed without a message");
        return SESSIONKIT_SECRET_FAILED;
    }
    sk_write(message, capacity, error->message ? error->message : "no message");
    sessionkit_secret_status status = SESSIONKIT_SECRET_FAILED;
    if ((error->domain == sk.secret_error_quark() && error->code == SK_SECRET_ERROR_IS_LOCKED)
        || (error->domain == sk.dbus_error_quark() && error->code == SK_DBUS_ERROR_ACCESS_DENIED)
        || (error->domain == sk.io_error_quark() && error->code == SK_IO_ERROR_CANCELLED)) {
        status = SESSIONKIT_SECRET_DENIED;
    }
    sk.error_free(error);
    return status;
}

static sk_hash_table *sk_attributes(const char *service, const char *account) {
    sk_hash_table *attributes = sk.hash_table_new(sk.str_hash, sk.str_equal);
    sk.hash_table_insert(attributes, (void *)"service", (void *)service);
    sk.hash_table_insert(attributes, (void *)"account", (void *)account);
    return attributes;
}

sessionkit_secret_status sessionkit_secret_runtime_probe(char *message, size_t capacity) {
    sessionkit_secret_status loaded = sessionkit_secret_runtime_load(message, capacity);
    if (loaded != SESSIONKIT_SECRET_OK) return loaded;
    sk_gerror *error = NULL;
    void *service = sk.service_get(0, NULL, &error);
    if (service == NULL) return sk_failure(error, message, capacity);
    void *collection = sk.collection_for_alias(service, "default", 0, NULL, &error);
    sk.object_unref(service);
    if (collection == NULL) {
        if (error == NULL) {
            sk_write(message, capacity, "the Secret Service has no default collection");
            return SESSIONKIT_SECRET_FAILED;
        }
        return sk_failure(error, message, capacity);
    }
    sk.object_unref(collection);
    return SESSIONKIT_SECRET_OK;
}

sessionkit_secret_status sessionkit_secret_runtime_store(
    const char *service, const char *account, const char *label, const unsigned char *bytes, size_t length, char *message,
    size_t capacity) {
    sessionkit_secret_status loaded = sessionkit_secret_runtime_load(message, capacity);
    if (loaded != SESSIONKIT_SECRET_OK) return loaded;
    sk_hash_table *attributes = sk_attributes(service, account);
    void *value = sk.value_new((const char *)bytes, (long)length, "application/octet-stream");
    sk_gerror *error = NULL;
    int stored = sk.store(&sk_credential_schema, attributes, "default", label, value, NULL, &error);
    sk.value_unref(value);
    sk.hash_table_unref(attributes);
    return stored ? SESSIONKIT_SECRET_OK : sk_failure(error, message, capacity);
}

sessionkit_secret_status sessionkit_secret_runtime_lookup(
    const char *service, const char *account, void **value, char *message, size_t capacity) {
    *value = NULL;
    sessionkit_secret_status loaded = sessionkit_secret_runtime_load(message, capacity);
    if (loaded != SESSIONKIT_SECRET_OK) return loaded;
    sk_hash_table *attributes = sk_attributes(service, account);
    sk_gerror *error = NULL;
    *value = sk.lookup(&sk_credential_schema, attributes, NULL, &error);
    sk.hash_table_unref(attributes);
    if (*value == NULL && error != NULL) return sk_failure(error, message, capacity);
    return SESSIONKIT_SECRET_OK;
}

const unsigned char *sessionkit_secret_runtime_bytes(void *value, size_t *length) {
    size_t size = 0;
    const char *bytes = sk.value_get(value, &size);
    *length = size;
    return (const unsigned char *)bytes;
}

void sessionkit_secret_runtime_release(void *value) {
    if (value != NULL) sk.value_unref(value);
}

sessionkit_secret_status sessionkit_secret_runtime_clear(const char *service, const char *account, char *message, size_t capacity) {
    sessionkit_secret_status loaded = sessionkit_secret_runtime_load(message, capacity);
    if (loaded != SESSIONKIT_SECRET_OK) return loaded;
    sk_hash_table *attributes = sk_attributes(service, account);
    sk_gerror *error = NULL;
    int cleared = sk.clear(&sk_credential_schema, attributes, NULL, &error);
    sk.hash_table_unref(attributes);
    if (!cleared && error != NULL) return sk_failure(error, message, capacity);
    return SESSIONKIT_SECRET_OK;
}
