// libzmq for Tessera's data plane. Prefixed functions stand in for macros Swift cannot import.
#ifndef TESSERA_CZEROMQ_SHIM_H
#define TESSERA_CZEROMQ_SHIM_H
#include <zmq.h>
#include <errno.h>

/// zmq_errno() reads errno through the library; EAGAIN/EINTR are compared against it.
static inline int tessera_zmq_EAGAIN(void) { return EAGAIN; }
static inline int tessera_zmq_EINTR(void) { return EINTR; }
/// ETERM is libzmq's own errno (ZMQ_HAUSNUMERO + 53): the context is shutting down.
static inline int tessera_zmq_ETERM(void) { return ETERM; }
/// ROUTER_MANDATORY: the routing id names no connected peer.
static inline int tessera_zmq_EHOSTUNREACH(void) { return EHOSTUNREACH; }
/// Socket already closed.
static inline int tessera_zmq_ENOTSOCK(void) { return ENOTSOCK; }
#endif
