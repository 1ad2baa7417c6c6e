#ifndef CSESSIONKIT_SUPPORT_H
#define CSESSIONKIT_SUPPORT_H

#include "sessionkit_secret_runtime.h"

/// Tells the thread sanitizer that a lock guarding `address` was acquired. A no-op unless the
/// build is instrumented. `Synchronization.Mutex` hands its lock over through the kernel on
/// Linux, where the sanitizer cannot see it; these two calls make the happens-before visible.
void sessionkit_tsan_acquire(void *address);

/// Tells the thread sanitizer that a lock guarding `address` is about to be released.
void sessionkit_tsan_release(void *address);

#endif
