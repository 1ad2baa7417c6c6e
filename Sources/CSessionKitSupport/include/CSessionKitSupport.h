#ifndef CSESSIONKIT_SUPPORT_H
#define CSESSIONKIT_SUPPORT_H

#include "sessionkit_secret_runtime.h"

// The thread sanitizer's annotations, declared weak: an instrumented build links the sanitizer's
// runtime, which defines them; any other build leaves them null, and the calls below are skipped.
// Inline, so an uninstrumented build pays a test and a branch, not two out-of-line calls, on the
// session's fast path. (Whether the sanitizer is on cannot be asked here: Swift's Clang importer
// is not told.) Only Linux needs them: elsewhere `Synchronization.Mutex` uses a lock the sanitizer
// understands.
#if defined(__linux__)
extern void __tsan_acquire(void *address) __attribute__((weak));
extern void __tsan_release(void *address) __attribute__((weak));
#endif

/// Tells the thread sanitizer that a lock guarding `address` was acquired. A no-op unless the
/// build is instrumented. `Synchronization.Mutex` hands its lock over through the kernel on
/// Linux, where the sanitizer cannot see it; these two calls make the happens-before visible.
static inline __attribute__((always_inline)) void sessionkit_tsan_acquire(void *address) {
#if defined(__linux__)
    if (__tsan_acquire) __tsan_acquire(address);
#else
    (void)address;
#endif
}

/// Tells the thread sanitizer that a lock guarding `address` is about to be released.
static inline __attribute__((always_inline)) void sessionkit_tsan_release(void *address) {
#if defined(__linux__)
    if (__tsan_release) __tsan_release(address);
#else
    (void)address;
#endif
}

#endif
