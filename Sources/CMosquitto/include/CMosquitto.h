// libmosquitto's API, opened with dlopen when an MQTT destination runs (loader.c): the
// logger and HTTP-only syncs never load libmosquitto, libssl or libcrypto.
#ifndef OVERLAND_CMOSQUITTO_H
#define OVERLAND_CMOSQUITTO_H

#include <stddef.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>

/// Opens libmosquitto.so.1 and resolves every function this package calls, once per
/// process. Returns 0, or -1 with a one-line reason in `message` (the library missing, or a
/// function missing from an older version). Every mosquitto_ function below may be called
/// only after it returned 0.
int overland_mosquitto_open(char *message, size_t size);

#endif
