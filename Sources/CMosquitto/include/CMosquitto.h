// libmosquitto's API, and the part of OpenSSL's the MQTT relay uses for its TLS to the
// broker, opened with dlopen when an MQTT destination runs (loader.c): the logger and
// HTTP-only syncs never load libmosquitto, libssl or libcrypto.
#ifndef OVERLAND_CMOSQUITTO_H
#define OVERLAND_CMOSQUITTO_H

#include <stddef.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

/// Opens libssl.so.3 and libmosquitto.so.1 and resolves every function of theirs this
/// package calls, once per process. Returns 0, or -1 with a one-line reason in `message` (the library missing, or a
/// function missing from an older version). Every mosquitto_, SSL_, BIO_, ERR_ and X509_
/// function may be called only after it returned 0.
int overland_mosquitto_open(char *message, size_t size);

#endif
