#ifndef CSESSIONKIT_OPENSSL_SHIM_H
#define CSESSIONKIT_OPENSSL_SHIM_H

// A deliberately small surface over OpenSSL 3: SHA-256, RSA PKCS#1 v1.5 with SHA-256, ECDSA P-256
// with SHA-256, a CSPRNG.
// Everything that touches OpenSSL's pointer-keeping APIs (OSSL_PARAM_BLD keeps the parameter
// *name* pointer) lives here, where the names are static C strings.

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <stddef.h>

/// Fetches the SHA-256 implementation once, so each digest skips OpenSSL 3's per-call lookup.
/// Returns NULL on failure; the result is immutable and may be shared between threads.
static inline EVP_MD *sk_sha256_fetch(void) { return EVP_MD_fetch(NULL, "SHA256", NULL); }

/// One-shot SHA-256 with a digest from `sk_sha256_fetch` (or NULL for OpenSSL's built-in
/// lookup). `out` must hold 32 bytes. Returns 1 on success.
static inline int sk_sha256(const EVP_MD *md, const void *message, size_t length, unsigned char *out) {
    unsigned int written = 0;
    if (EVP_Digest(message, length, out, &written, md != NULL ? md : EVP_sha256(), NULL) != 1 || written != 32) {
        ERR_clear_error();
        return 0;
    }
    return 1;
}

/// Fills `out` from OpenSSL's CSPRNG. Returns 1 only when every byte was produced.
static inline int sk_random_bytes(unsigned char *out, size_t count) {
    while (count > 0) {
        int chunk = count > 1u << 20 ? 1 << 20 : (int)count;
        if (RAND_bytes(out, chunk) != 1) {
            ERR_clear_error();
            return 0;
        }
        out += chunk;
        count -= (size_t)chunk;
    }
    return 1;
}

/// Builds an RSA public key from big-endian modulus and exponent octets (no leading-zero rules
/// enforced here). Returns NULL on failure; release with `sk_key_free`.
static inline EVP_PKEY *sk_rsa_public_key(const unsigned char *n, size_t n_length,
                                          const unsigned char *e, size_t e_length) {
    EVP_PKEY *key = NULL;
    BIGNUM *bn_n = BN_bin2bn(n, (int)n_length, NULL);
    BIGNUM *bn_e = BN_bin2bn(e, (int)e_length, NULL);
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    if (bn_n == NULL || bn_e == NULL || builder == NULL) goto done;
    if (OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, bn_n) != 1) goto done;
    if (OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, bn_e) != 1) goto done;
    params = OSSL_PARAM_BLD_to_param(builder);
    if (params == NULL) goto done;
    ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
    if (ctx == NULL) goto done;
    if (EVP_PKEY_fromdata_init(ctx) != 1) goto done;
    if (EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params) != 1) key = NULL;
done:
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(builder);
    BN_free(bn_n);
    BN_free(bn_e);
    if (key == NULL) ERR_clear_error();
    return key;
}

/// Verifies an RSASSA-PKCS1-v1_5 SHA-256 signature over `message`. Returns 1 only for a valid
/// signature; any failure clears OpenSSL's error queue so it cannot leak into a later call.
static inline int sk_rsa_verify_sha256(EVP_PKEY *key, const unsigned char *signature, size_t signature_length,
                                       const void *message, size_t message_length) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int result = 0;
    if (ctx == NULL) goto done;
    if (EVP_DigestVerifyInit_ex(ctx, NULL, "SHA256", NULL, NULL, key, NULL) != 1) goto done;
    result = EVP_DigestVerify(ctx, signature, signature_length, message, message_length) == 1;
done:
    EVP_MD_CTX_free(ctx);
    if (!result) ERR_clear_error();
    return result;
}

/// A SHA-256 verification context for `key` (`sign == 0`) or a signing one (`sign != 0`),
/// initialised once so that each operation copies it (`sk_verify_with_template`,
/// `sk_sign_with_template`) instead of looking the algorithms up and setting the key up again.
/// Returns NULL on failure; release with `sk_template_free`.
static inline EVP_MD_CTX *sk_template_sha256(EVP_PKEY *key, int sign) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (ctx == NULL) goto fail;
    if (sign ? EVP_DigestSignInit_ex(ctx, NULL, "SHA256", NULL, NULL, key, NULL) != 1
             : EVP_DigestVerifyInit_ex(ctx, NULL, "SHA256", NULL, NULL, key, NULL) != 1)
        goto fail;
    return ctx;
fail:
    EVP_MD_CTX_free(ctx);
    ERR_clear_error();
    return NULL;
}

/// Releases a context from `sk_template_sha256`.
static inline void sk_template_free(EVP_MD_CTX *ctx) { EVP_MD_CTX_free(ctx); }

/// A copy of a context from `sk_template_sha256`, ready for one operation; the template itself
/// is only read. Returns NULL on failure; pass the copy to exactly one of
/// `sk_verify_with_copy` and `sk_sign_with_copy`, which free it.
static inline EVP_MD_CTX *sk_template_copy(const EVP_MD_CTX *template_ctx) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (ctx == NULL || EVP_MD_CTX_copy_ex(ctx, template_ctx) != 1) {
        EVP_MD_CTX_free(ctx);
        ERR_clear_error();
        return NULL;
    }
    return ctx;
}

/// `sk_rsa_verify_sha256` (and `sk_ecdsa_verify_sha256`) on a copy from `sk_template_copy`,
/// which it frees.
static inline int sk_verify_with_copy(EVP_MD_CTX *ctx, const unsigned char *signature, size_t signature_length,
                                      const void *message, size_t message_length) {
    int result = EVP_DigestVerify(ctx, signature, signature_length, message, message_length) == 1;
    EVP_MD_CTX_free(ctx);
    if (!result) ERR_clear_error();
    return result;
}

/// `sk_ecdsa_sign_sha256` (and `sk_rsa_sign_sha256`) on a copy from `sk_template_copy`, which it
/// frees.
static inline int sk_sign_with_copy(EVP_MD_CTX *ctx, const void *message, size_t message_length, unsigned char *out,
                                    size_t out_capacity, size_t *out_length) {
    size_t length = out_capacity;
    int result = EVP_DigestSign(ctx, out, &length, message, message_length) == 1;
    if (result) *out_length = length;
    EVP_MD_CTX_free(ctx);
    if (!result) ERR_clear_error();
    return result;
}

/// Generates an RSA key pair with public exponent 65537. Returns NULL on failure.
static inline EVP_PKEY *sk_rsa_generate(unsigned int bits) {
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
    if (ctx == NULL) goto done;
    if (EVP_PKEY_keygen_init(ctx) != 1) goto done;
    if (EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, (int)bits) != 1) goto done;
    if (EVP_PKEY_generate(ctx, &key) != 1) key = NULL;
done:
    EVP_PKEY_CTX_free(ctx);
    if (key == NULL) ERR_clear_error();
    return key;
}

/// Signs `message` with RSASSA-PKCS1-v1_5 SHA-256. `out` must hold `EVP_PKEY_get_size(key)`
/// bytes; `*out_length` receives the signature length. Returns 1 on success.
static inline int sk_rsa_sign_sha256(EVP_PKEY *key, const void *message, size_t message_length,
                                     unsigned char *out, size_t out_capacity, size_t *out_length) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int result = 0;
    size_t length = out_capacity;
    if (ctx == NULL) goto done;
    if (EVP_DigestSignInit_ex(ctx, NULL, "SHA256", NULL, NULL, key, NULL) != 1) goto done;
    if (EVP_DigestSign(ctx, out, &length, message, message_length) != 1) goto done;
    *out_length = length;
    result = 1;
done:
    EVP_MD_CTX_free(ctx);
    if (!result) ERR_clear_error();
    return result;
}

/// Size in bytes of the key's modulus (and so of its signatures).
static inline int sk_key_size(const EVP_PKEY *key) { return EVP_PKEY_get_size(key); }

/// Bit length of the key's modulus.
static inline int sk_key_bits(const EVP_PKEY *key) { return EVP_PKEY_get_bits(key); }

/// Copies the modulus (`which == 0`) or public exponent (`which == 1`) as big-endian bytes
/// without leading zeros into `out`. Returns the length written, or -1 on failure.
static inline int sk_rsa_component(const EVP_PKEY *key, int which, unsigned char *out, size_t capacity) {
    BIGNUM *value = NULL;
    int length = -1;
    if (EVP_PKEY_get_bn_param(key, which == 0 ? OSSL_PKEY_PARAM_RSA_N : OSSL_PKEY_PARAM_RSA_E, &value) != 1) goto done;
    if ((size_t)BN_num_bytes(value) > capacity) goto done;
    length = BN_bn2bin(value, out);
done:
    BN_free(value);
    if (length < 0) ERR_clear_error();
    return length;
}

/// Builds a P-256 public key from its uncompressed point `0x04 || x || y` (65 bytes). OpenSSL
/// refuses coordinates outside the field and a point off the curve; the public-key check then
/// refuses the point at infinity and a point outside the prime-order group. Returns NULL on any
/// failure; release with `sk_key_free`.
static inline EVP_PKEY *sk_p256_public_key(const unsigned char *point, size_t point_length) {
    EVP_PKEY *key = NULL;
    OSSL_PARAM_BLD *builder = NULL;
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    EVP_PKEY_CTX *check = NULL;
    if (point == NULL || point_length != 65 || point[0] != 0x04) goto done;
    builder = OSSL_PARAM_BLD_new();
    if (builder == NULL) goto done;
    // Both the name and the value are static strings: the builder keeps their pointers.
    if (OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) != 1) goto done;
    if (OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, point, point_length) != 1) goto done;
    params = OSSL_PARAM_BLD_to_param(builder);
    if (params == NULL) goto done;
    ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (ctx == NULL) goto done;
    if (EVP_PKEY_fromdata_init(ctx) != 1) goto done;
    if (EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params) != 1) {
        key = NULL;
        goto done;
    }
    check = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
    if (check == NULL || EVP_PKEY_public_check(check) != 1) {
        EVP_PKEY_free(key);
        key = NULL;
    }
done:
    EVP_PKEY_CTX_free(check);
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(builder);
    if (key == NULL) ERR_clear_error();
    return key;
}

/// Verifies a DER `ECDSA-Sig-Value` with SHA-256 over `message`. Returns 1 only for a valid
/// signature; any failure clears OpenSSL's error queue.
static inline int sk_ecdsa_verify_sha256(EVP_PKEY *key, const unsigned char *signature, size_t signature_length,
                                         const void *message, size_t message_length) {
    // EVP_DigestVerify is the same call for both key types; the name says what the caller checked.
    return sk_rsa_verify_sha256(key, signature, signature_length, message, message_length);
}

/// Generates a P-256 key pair. Returns NULL on failure.
static inline EVP_PKEY *sk_p256_generate(void) {
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (ctx == NULL) goto done;
    if (EVP_PKEY_keygen_init(ctx) != 1) goto done;
    if (EVP_PKEY_CTX_set_group_name(ctx, "P-256") != 1) goto done;
    if (EVP_PKEY_generate(ctx, &key) != 1) key = NULL;
done:
    EVP_PKEY_CTX_free(ctx);
    if (key == NULL) ERR_clear_error();
    return key;
}

/// Signs `message` with ECDSA over SHA-256; the signature is DER, at most `EVP_PKEY_get_size(key)`
/// bytes (72 for P-256). Returns 1 on success.
static inline int sk_ecdsa_sign_sha256(EVP_PKEY *key, const void *message, size_t message_length,
                                       unsigned char *out, size_t out_capacity, size_t *out_length) {
    return sk_rsa_sign_sha256(key, message, message_length, out, out_capacity, out_length);
}

/// Copies an EC key's public point, uncompressed (`0x04 || x || y`, 65 bytes for P-256), into
/// `out`. Returns the length written, or -1 on failure.
static inline int sk_ec_public_point(const EVP_PKEY *key, unsigned char *out, size_t capacity) {
    size_t length = 0;
    if (EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, out, capacity, &length) != 1) {
        ERR_clear_error();
        return -1;
    }
    return (int)length;
}

/// Builds a P-256 private key from its scalar `d` (32 bytes, big-endian) and its public point
/// `0x04 || x || y` (65 bytes). The pair check refuses a scalar that does not belong to the
/// point, so a corrupted stored key never signs. Returns NULL on any failure.
static inline EVP_PKEY *sk_p256_private_key(const unsigned char *scalar, size_t scalar_length,
                                            const unsigned char *point, size_t point_length) {
    EVP_PKEY *key = NULL;
    BIGNUM *d = NULL;
    OSSL_PARAM_BLD *builder = NULL;
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    EVP_PKEY_CTX *check = NULL;
    if (scalar == NULL || scalar_length != 32 || point == NULL || point_length != 65 || point[0] != 0x04) goto done;
    d = BN_secure_new();
    if (d == NULL || BN_bin2bn(scalar, 32, d) == NULL) goto done;
    builder = OSSL_PARAM_BLD_new();
    if (builder == NULL) goto done;
    // Names and the group string are static: the builder keeps their pointers.
    if (OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) != 1) goto done;
    if (OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, point, point_length) != 1) goto done;
    if (OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_PRIV_KEY, d) != 1) goto done;
    params = OSSL_PARAM_BLD_to_param(builder);
    if (params == NULL) goto done;
    ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (ctx == NULL) goto done;
    if (EVP_PKEY_fromdata_init(ctx) != 1) goto done;
    if (EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_KEYPAIR, params) != 1) {
        key = NULL;
        goto done;
    }
    check = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
    if (check == NULL || EVP_PKEY_pairwise_check(check) != 1) {
        EVP_PKEY_free(key);
        key = NULL;
    }
done:
    EVP_PKEY_CTX_free(check);
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(builder);
    BN_clear_free(d);
    if (key == NULL) ERR_clear_error();
    return key;
}

/// Copies a P-256 private key's scalar `d` as exactly 32 big-endian bytes into `out`. Returns 32,
/// or -1 on failure. The intermediate number is cleared before it is freed.
static inline int sk_p256_private_scalar(const EVP_PKEY *key, unsigned char *out, size_t capacity) {
    BIGNUM *d = NULL;
    int length = -1;
    if (capacity < 32) goto done;
    if (EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &d) != 1) goto done;
    if (BN_bn2binpad(d, out, 32) != 32) goto done;
    length = 32;
done:
    BN_clear_free(d);
    if (length < 0) ERR_clear_error();
    return length;
}

/// Releases a key from this shim.
/// An RSA private key from a PKCS #1 `RSAPrivateKey` DER encoding that fills all of `der`, checked
/// for consistency (primes, exponents, the public half). Returns NULL on any failure; release with
/// `sk_key_free`. Never prompts for a passphrase (DER carries none).
static inline EVP_PKEY *sk_rsa_private_key_from_der(const unsigned char *der, size_t der_length) {
    const unsigned char *cursor = der;
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    if (der == NULL || der_length == 0 || der_length > 1u << 20) return NULL;
    key = d2i_PrivateKey(EVP_PKEY_RSA, NULL, &cursor, (long)der_length);
    if (key == NULL) goto fail;
    if (cursor != der + der_length) goto fail;
    ctx = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
    if (ctx == NULL || EVP_PKEY_check(ctx) != 1) goto fail;
    EVP_PKEY_CTX_free(ctx);
    return key;
fail:
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    ERR_clear_error();
    return NULL;
}

static inline void sk_key_free(EVP_PKEY *key) { EVP_PKEY_free(key); }

#endif
