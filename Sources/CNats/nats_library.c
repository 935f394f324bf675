#include "CNats.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// The library's soname: the ABI this was built against (Debian's libnats3.4).
#define NOTIFYD_NATS_LIBRARY "libnats.so.3.4"

// Every function used, as (result, name, parameters, arguments). A definition below whose type
// differs from libnats' declaration does not compile.
#define NOTIFYD_NATS_FUNCTIONS(F)                                                                    \
  F(const char *, nats_GetLastError, (natsStatus * status), (status))                                \
  F(const char *, natsStatus_GetText, (natsStatus s), (s))                                           \
  F(natsStatus, natsOptions_Create, (natsOptions * *options), (options))                             \
  F(void, natsOptions_Destroy, (natsOptions * options), (options))                                   \
  F(natsStatus, natsOptions_SetServers, (natsOptions * o, const char **servers, int count),          \
    (o, servers, count))                                                                             \
  F(natsStatus, natsOptions_SetName, (natsOptions * o, const char *name), (o, name))                 \
  F(natsStatus, natsOptions_SetUserInfo, (natsOptions * o, const char *user, const char *password),  \
    (o, user, password))                                                                             \
  F(natsStatus, natsOptions_SetToken, (natsOptions * o, const char *token), (o, token))              \
  F(natsStatus, natsOptions_SetUserCredentialsFromFiles,                                             \
    (natsOptions * o, const char *user, const char *seed), (o, user, seed))                          \
  F(natsStatus, natsOptions_SetSecure, (natsOptions * o, bool secure), (o, secure))                  \
  F(natsStatus, natsOptions_LoadCATrustedCertificates, (natsOptions * o, const char *file), (o, file)) \
  F(natsStatus, natsOptions_SetMaxReconnect, (natsOptions * o, int count), (o, count))               \
  F(natsStatus, natsOptions_SetReconnectWait, (natsOptions * o, int64_t wait), (o, wait))            \
  F(natsStatus, natsOptions_SetReconnectJitter, (natsOptions * o, int64_t jitter, int64_t tls),      \
    (o, jitter, tls))                                                                                \
  F(natsStatus, natsOptions_SetTimeout, (natsOptions * o, int64_t timeout), (o, timeout))            \
  F(natsStatus, natsOptions_SetDisconnectedCB,                                                       \
    (natsOptions * o, natsConnectionHandler handler, void *closure), (o, handler, closure))          \
  F(natsStatus, natsOptions_SetReconnectedCB,                                                        \
    (natsOptions * o, natsConnectionHandler handler, void *closure), (o, handler, closure))          \
  F(natsStatus, natsOptions_SetClosedCB, (natsOptions * o, natsConnectionHandler handler, void *closure), \
    (o, handler, closure))                                                                           \
  F(natsStatus, natsOptions_SetErrorHandler, (natsOptions * o, natsErrHandler handler, void *closure), \
    (o, handler, closure))                                                                           \
  F(natsStatus, natsConnection_Connect, (natsConnection * *connection, natsOptions * o), (connection, o)) \
  F(void, natsConnection_Close, (natsConnection * connection), (connection))                         \
  F(void, natsConnection_Destroy, (natsConnection * connection), (connection))                       \
  F(natsConnStatus, natsConnection_Status, (natsConnection * connection), (connection))              \
  F(natsStatus, natsConnection_GetConnectedUrl, (natsConnection * connection, char *buffer, size_t size), \
    (connection, buffer, size))                                                                      \
  F(natsStatus, natsConnection_GetLastError, (natsConnection * connection, const char **text),       \
    (connection, text))                                                                              \
  F(natsStatus, natsConnection_JetStream, (jsCtx * *js, natsConnection * connection, jsOptions * o), \
    (js, connection, o))                                                                             \
  F(void, jsCtx_Destroy, (jsCtx * js), (js))                                                         \
  F(natsStatus, jsOptions_Init, (jsOptions * o), (o))                                                \
  F(natsStatus, jsPubOptions_Init, (jsPubOptions * o), (o))                                          \
  F(natsStatus, jsStreamConfig_Init, (jsStreamConfig * config), (config))                            \
  F(natsStatus, jsSubOptions_Init, (jsSubOptions * o), (o))                                          \
  F(natsStatus, js_GetStreamInfo,                                                                    \
    (jsStreamInfo * *info, jsCtx * js, const char *stream, jsOptions *o, jsErrCode *code),           \
    (info, js, stream, o, code))                                                                     \
  F(natsStatus, js_AddStream,                                                                        \
    (jsStreamInfo * *info, jsCtx * js, jsStreamConfig * config, jsOptions * o, jsErrCode * code),    \
    (info, js, config, o, code))                                                                     \
  F(void, jsStreamInfo_Destroy, (jsStreamInfo * info), (info))                                       \
  F(natsStatus, js_GetConsumerInfo,                                                                  \
    (jsConsumerInfo * *info, jsCtx * js, const char *stream, const char *consumer, jsOptions *o,     \
     jsErrCode *code),                                                                               \
    (info, js, stream, consumer, o, code))                                                           \
  F(void, jsConsumerInfo_Destroy, (jsConsumerInfo * info), (info))                                   \
  F(natsStatus, js_DeleteConsumer,                                                                   \
    (jsCtx * js, const char *stream, const char *consumer, jsOptions *o, jsErrCode *code),           \
    (js, stream, consumer, o, code))                                                                 \
  F(natsStatus, js_Publish,                                                                          \
    (jsPubAck * *ack, jsCtx * js, const char *subject, const void *data, int length, jsPubOptions *o, \
     jsErrCode *code),                                                                               \
    (ack, js, subject, data, length, o, code))                                                       \
  F(void, jsPubAck_Destroy, (jsPubAck * ack), (ack))                                                 \
  F(natsStatus, js_PublishAsync,                                                                     \
    (jsCtx * js, const char *subject, const void *data, int length, jsPubOptions *o),               \
    (js, subject, data, length, o))                                                                  \
  F(natsStatus, js_PublishAsyncComplete, (jsCtx * js, jsPubOptions * o), (js, o))                    \
  F(natsStatus, natsMsgHeader_Get, (natsMsg * message, const char *key, const char **value),         \
    (message, key, value))                                                                           \
  F(natsStatus, js_PullSubscribe,                                                                    \
    (natsSubscription * *sub, jsCtx * js, const char *subject, const char *durable, jsOptions *o,    \
     jsSubOptions *subOptions, jsErrCode *code),                                                     \
    (sub, js, subject, durable, o, subOptions, code))                                                \
  F(natsStatus, js_SubscribeSync,                                                                    \
    (natsSubscription * *sub, jsCtx * js, const char *subject, jsOptions *o, jsSubOptions *subOptions, \
     jsErrCode *code),                                                                               \
    (sub, js, subject, o, subOptions, code))                                                         \
  F(natsStatus, natsSubscription_Fetch,                                                              \
    (natsMsgList * list, natsSubscription * sub, int batch, int64_t timeout, jsErrCode * code),      \
    (list, sub, batch, timeout, code))                                                               \
  F(natsStatus, natsSubscription_NextMsg, (natsMsg * *message, natsSubscription * sub, int64_t timeout), \
    (message, sub, timeout))                                                                         \
  F(natsStatus, natsSubscription_GetPending, (natsSubscription * sub, int *msgs, int *bytes),         \
    (sub, msgs, bytes))                                                                              \
  F(void, natsSubscription_Destroy, (natsSubscription * sub), (sub))                                 \
  F(void, natsMsgList_Destroy, (natsMsgList * list), (list))                                         \
  F(const char *, natsMsg_GetSubject, (const natsMsg *message), (message))                           \
  F(const char *, natsMsg_GetData, (const natsMsg *message), (message))                              \
  F(int, natsMsg_GetDataLength, (const natsMsg *message), (message))                                 \
  F(natsStatus, natsMsg_Ack, (natsMsg * message, jsOptions * o), (message, o))                      \
  F(natsStatus, natsMsg_Term, (natsMsg * message, jsOptions * o), (message, o))                      \
  F(natsStatus, natsMsg_InProgress, (natsMsg * message, jsOptions * o), (message, o))                \
  F(void, natsMsg_Destroy, (natsMsg * message), (message))

// The library's functions, set once by `load`.
#define NOTIFYD_NATS_POINTER(result, name, parameters, arguments) static result(*loaded_##name) parameters;
NOTIFYD_NATS_FUNCTIONS(NOTIFYD_NATS_POINTER)

// Hidden: never exported, so libnats' calls to its own functions never land here.
#define NOTIFYD_NATS_FORWARD(result, name, parameters, arguments) \
  __attribute__((visibility("hidden"))) result name parameters { return loaded_##name arguments; }
NOTIFYD_NATS_FUNCTIONS(NOTIFYD_NATS_FORWARD)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];

static void load(void) {
  void *library = dlopen(NOTIFYD_NATS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    snprintf(failure, sizeof failure, "cannot load %s (the NATS C client; Debian package libnats3.4): %s",
             NOTIFYD_NATS_LIBRARY, dlerror());
    return;
  }
#define NOTIFYD_NATS_LOOKUP(result, name, parameters, arguments)                                    \
  loaded_##name = (result(*) parameters)dlsym(library, #name);                                     \
  if (loaded_##name == NULL) {                                                                       \
    snprintf(failure, sizeof failure, "%s has no function %s", NOTIFYD_NATS_LIBRARY, #name);        \
    return;                                                                                          \
  }
  NOTIFYD_NATS_FUNCTIONS(NOTIFYD_NATS_LOOKUP)
}

int notifyd_nats_open(char *error, size_t size) {
  pthread_once(&once, load);
  if (failure[0] == 0) return 0;
  snprintf(error, size, "%s", failure);
  return -1;
}
