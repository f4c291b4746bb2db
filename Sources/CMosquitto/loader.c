// Forwarders for the libmosquitto and OpenSSL functions the package calls, resolved with
// dlopen and dlsym on first use of MQTT (overland_mosquitto_open). The executable is not
// linked against either: a command that never speaks MQTT does not pay for loading them,
// and a device without them still logs and syncs over HTTP (whose TLS is BoringSSL's,
// built in).
//
// Each forwarder has the exact prototype of its header, so the Swift code calls the usual
// names. A function used by the package and missing here is a link error, not a crash.
// They are hidden: the libraries themselves, which call each other by these names, bind
// to one another, never to the executable's forwarders.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC visibility push(hidden)
#include "CMosquitto.h"

#define OVERLAND_MOSQUITTO_LIBRARY "libmosquitto.so.1"
#define OVERLAND_OPENSSL_LIBRARY "libssl.so.3"

// X(return type, name, parameters, arguments)
#define OVERLAND_MOSQUITTO_FUNCTIONS(X) \
    X(int, mosquitto_lib_init, (void), ()) \
    X(int, mosquitto_lib_version, (int *major, int *minor, int *revision), (major, minor, revision)) \
    X(struct mosquitto *, mosquitto_new, (const char *id, bool clean_session, void *obj), (id, clean_session, obj)) \
    X(int, mosquitto_int_option, (struct mosquitto *mosq, enum mosq_opt_t option, int value), (mosq, option, value)) \
    X(int, mosquitto_connect_async, (struct mosquitto *mosq, const char *host, int port, int keepalive), \
      (mosq, host, port, keepalive)) \
    X(int, mosquitto_connect_bind_v5, (struct mosquitto *mosq, const char *host, int port, int keepalive, \
                                       const char *bind_address, const mosquitto_property *properties), \
      (mosq, host, port, keepalive, bind_address, properties)) \
    X(int, mosquitto_socket, (struct mosquitto *mosq), (mosq)) \
    X(int, mosquitto_disconnect, (struct mosquitto *mosq), (mosq)) \
    X(int, mosquitto_loop, (struct mosquitto *mosq, int timeout, int max_packets), (mosq, timeout, max_packets)) \
    X(int, mosquitto_publish, (struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload, \
                               int qos, bool retain), (mosq, mid, topic, payloadlen, payload, qos, retain)) \
    X(int, mosquitto_publish_v5, (struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload, \
                                  int qos, bool retain, const mosquitto_property *properties), \
      (mosq, mid, topic, payloadlen, payload, qos, retain, properties)) \
    X(int, mosquitto_subscribe, (struct mosquitto *mosq, int *mid, const char *sub, int qos), (mosq, mid, sub, qos)) \
    X(int, mosquitto_subscribe_v5, (struct mosquitto *mosq, int *mid, const char *sub, int qos, int options, \
                                    const mosquitto_property *properties), (mosq, mid, sub, qos, options, properties)) \
    X(int, mosquitto_tls_set, (struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile, \
                               const char *keyfile, int (*pw_callback)(char *buf, int size, int rwflag, void *userdata)), \
      (mosq, cafile, capath, certfile, keyfile, pw_callback)) \
    X(int, mosquitto_tls_opts_set, (struct mosquitto *mosq, int cert_reqs, const char *tls_version, const char *ciphers), \
      (mosq, cert_reqs, tls_version, ciphers)) \
    X(int, mosquitto_tls_insecure_set, (struct mosquitto *mosq, bool value), (mosq, value)) \
    X(int, mosquitto_username_pw_set, (struct mosquitto *mosq, const char *username, const char *password), \
      (mosq, username, password)) \
    X(int, mosquitto_will_set, (struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos, \
                                bool retain), (mosq, topic, payloadlen, payload, qos, retain)) \
    X(int, mosquitto_property_add_int32, (mosquitto_property **proplist, int identifier, uint32_t value), \
      (proplist, identifier, value)) \
    X(int, mosquitto_property_add_int16, (mosquitto_property **proplist, int identifier, uint16_t value), \
      (proplist, identifier, value)) \
    X(int, mosquitto_property_add_byte, (mosquitto_property **proplist, int identifier, uint8_t value), \
      (proplist, identifier, value)) \
    X(const char *, mosquitto_strerror, (int mosq_errno), (mosq_errno)) \
    X(const char *, mosquitto_reason_string, (int reason_code), (reason_code)) \
    X(const char *, mosquitto_connack_string, (int connack_code), (connack_code))

#define OVERLAND_MOSQUITTO_VOID_FUNCTIONS(X) \
    X(mosquitto_destroy, (struct mosquitto *mosq), (mosq)) \
    X(mosquitto_user_data_set, (struct mosquitto *mosq, void *obj), (mosq, obj)) \
    X(mosquitto_property_free_all, (mosquitto_property **properties), (properties)) \
    X(mosquitto_connect_v5_callback_set, (struct mosquitto *mosq, \
      void (*on_connect)(struct mosquitto *, void *, int, int, const mosquitto_property *props)), (mosq, on_connect)) \
    X(mosquitto_disconnect_v5_callback_set, (struct mosquitto *mosq, \
      void (*on_disconnect)(struct mosquitto *, void *, int, const mosquitto_property *props)), (mosq, on_disconnect)) \
    X(mosquitto_publish_v5_callback_set, (struct mosquitto *mosq, \
      void (*on_publish)(struct mosquitto *, void *, int, int, const mosquitto_property *props)), (mosq, on_publish)) \
    X(mosquitto_message_v5_callback_set, (struct mosquitto *mosq, \
      void (*on_message)(struct mosquitto *, void *, const struct mosquitto_message *, const mosquitto_property *props)), \
      (mosq, on_message)) \
    X(mosquitto_subscribe_v5_callback_set, (struct mosquitto *mosq, \
      void (*on_subscribe)(struct mosquitto *, void *, int, int, const int *, const mosquitto_property *props)), \
      (mosq, on_subscribe)) \
    X(mosquitto_log_callback_set, (struct mosquitto *mosq, void (*on_log)(struct mosquitto *, void *, int, const char *)), \
      (mosq, on_log))

// What the MQTT relay uses of OpenSSL 3 (libssl, and through it libcrypto).
#define OVERLAND_OPENSSL_FUNCTIONS(X) \
    X(const SSL_METHOD *, TLS_client_method, (void), ()) \
    X(SSL_CTX *, SSL_CTX_new, (const SSL_METHOD *meth), (meth)) \
    X(long, SSL_CTX_ctrl, (SSL_CTX *ctx, int cmd, long larg, void *parg), (ctx, cmd, larg, parg)) \
    X(int, SSL_CTX_load_verify_locations, (SSL_CTX *ctx, const char *CAfile, const char *CApath), (ctx, CAfile, CApath)) \
    X(int, SSL_CTX_set_default_verify_paths, (SSL_CTX *ctx), (ctx)) \
    X(SSL *, SSL_new, (SSL_CTX *ctx), (ctx)) \
    X(long, SSL_ctrl, (SSL *ssl, int cmd, long larg, void *parg), (ssl, cmd, larg, parg)) \
    X(int, SSL_do_handshake, (SSL *s), (s)) \
    X(X509_VERIFY_PARAM *, SSL_get0_param, (SSL *ssl), (ssl)) \
    X(int, SSL_get_error, (const SSL *s, int ret_code), (s, ret_code)) \
    X(long, SSL_get_verify_result, (const SSL *ssl), (ssl)) \
    X(int, SSL_pending, (const SSL *s), (s)) \
    X(int, SSL_read, (SSL *ssl, void *buf, int num), (ssl, buf, num)) \
    X(int, SSL_write, (SSL *ssl, const void *buf, int num), (ssl, buf, num)) \
    X(int, SSL_set1_host, (SSL *s, const char *hostname), (s, hostname)) \
    X(int, X509_VERIFY_PARAM_set1_ip_asc, (X509_VERIFY_PARAM *param, const char *ipasc), (param, ipasc)) \
    X(const BIO_METHOD *, BIO_s_mem, (void), ()) \
    X(BIO *, BIO_new, (const BIO_METHOD *type), (type)) \
    X(int, BIO_read, (BIO *b, void *data, int dlen), (b, data, dlen)) \
    X(int, BIO_write, (BIO *b, const void *data, int dlen), (b, data, dlen)) \
    X(size_t, BIO_ctrl_pending, (BIO *b), (b)) \
    X(unsigned long, ERR_get_error, (void), ())

#define OVERLAND_OPENSSL_VOID_FUNCTIONS(X) \
    X(SSL_CTX_free, (SSL_CTX *ctx), (ctx)) \
    X(SSL_CTX_set_verify, (SSL_CTX *ctx, int mode, SSL_verify_cb callback), (ctx, mode, callback)) \
    X(SSL_free, (SSL *ssl), (ssl)) \
    X(SSL_set_bio, (SSL *s, BIO *rbio, BIO *wbio), (s, rbio, wbio)) \
    X(SSL_set_connect_state, (SSL *s), (s)) \
    X(ERR_error_string_n, (unsigned long e, char *buf, size_t len), (e, buf, len))

// The resolved functions: written once under `once`, read only after open succeeded.
#define OVERLAND_POINTER(ret, name, params, args) static ret (*resolved_##name) params;
#define OVERLAND_VOID_POINTER(name, params, args) static void (*resolved_##name) params;
OVERLAND_MOSQUITTO_FUNCTIONS(OVERLAND_POINTER)
OVERLAND_MOSQUITTO_VOID_FUNCTIONS(OVERLAND_VOID_POINTER)
OVERLAND_OPENSSL_FUNCTIONS(OVERLAND_POINTER)
OVERLAND_OPENSSL_VOID_FUNCTIONS(OVERLAND_VOID_POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int opened = -1;
static char failure[256] = "not opened";

static int resolve(void *library, const char *name, void **slot) {
    *slot = dlsym(library, name);
    if (*slot == NULL) {
        snprintf(failure, sizeof failure, "the MQTT client's libraries have no %s (libmosquitto 2.0 and OpenSSL 3 "
                 "or later are needed)", name);
        return -1;
    }
    return 0;
}

static void open_once(void) {
    void *ssl = dlopen(OVERLAND_OPENSSL_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (ssl == NULL) {
        snprintf(failure, sizeof failure, "cannot load %s, OpenSSL for MQTT over TLS (Debian: apt-get install libssl3)",
                 OVERLAND_OPENSSL_LIBRARY);
        return;
    }
    // OVERLAND_LIBMOSQUITTO names another file (a library outside the loader's path, or,
    // in the tests, one that is missing).
    const char *name = getenv("OVERLAND_LIBMOSQUITTO");
    if (name == NULL || name[0] == '\0') name = OVERLAND_MOSQUITTO_LIBRARY;
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(failure, sizeof failure,
                 "cannot load %s, the MQTT client library (Debian: apt-get install libmosquitto1)", name);
        return;
    }
#define OVERLAND_RESOLVE(ret, name, params, args) \
    if (resolve(library, #name, (void **)&resolved_##name) != 0) return;
#define OVERLAND_VOID_RESOLVE(name, params, args) \
    if (resolve(library, #name, (void **)&resolved_##name) != 0) return;
#define OVERLAND_SSL_RESOLVE(ret, name, params, args) \
    if (resolve(ssl, #name, (void **)&resolved_##name) != 0) return;
#define OVERLAND_SSL_VOID_RESOLVE(name, params, args) \
    if (resolve(ssl, #name, (void **)&resolved_##name) != 0) return;
    OVERLAND_OPENSSL_FUNCTIONS(OVERLAND_SSL_RESOLVE)
    OVERLAND_OPENSSL_VOID_FUNCTIONS(OVERLAND_SSL_VOID_RESOLVE)
    OVERLAND_MOSQUITTO_FUNCTIONS(OVERLAND_RESOLVE)
    OVERLAND_MOSQUITTO_VOID_FUNCTIONS(OVERLAND_VOID_RESOLVE)
    opened = 0;
}

int overland_mosquitto_open(char *message, size_t size) {
    pthread_once(&once, open_once);
    if (opened == 0) return 0;
    if (message != NULL && size > 0) snprintf(message, size, "%s", failure);
    return -1;
}

#define OVERLAND_FORWARD(ret, name, params, args) ret name params { return resolved_##name args; }
#define OVERLAND_VOID_FORWARD(name, params, args) void name params { resolved_##name args; }
OVERLAND_MOSQUITTO_FUNCTIONS(OVERLAND_FORWARD)
OVERLAND_MOSQUITTO_VOID_FUNCTIONS(OVERLAND_VOID_FORWARD)
OVERLAND_OPENSSL_FUNCTIONS(OVERLAND_FORWARD)
OVERLAND_OPENSSL_VOID_FUNCTIONS(OVERLAND_VOID_FORWARD)
