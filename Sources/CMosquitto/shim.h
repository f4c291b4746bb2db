#include <mosquitto.h>
#include <mqtt_protocol.h>
/* OpenSSL, which libmosquitto links too: the MQTT relay's TLS to the broker. */
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
