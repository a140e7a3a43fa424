// libzmq for Tessera's data plane. Prefixed functions stand in for macros Swift cannot import.
#ifndef TESSERA_CZEROMQ_SHIM_H
#define TESSERA_CZEROMQ_SHIM_H
#include <zmq.h>
#include <errno.h>

/// zmq_errno() reads errno through the library; EAGAIN/EINTR are compared against it.
static inline int tessera_zmq_EAGAIN(void) { return EAGAIN; }
static inline int tessera_zmq_EINTR(void) { return EINTR; }
#endif
