#include "CSessionKitSupport.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SESSIONKIT_TSAN 1
#endif
#endif

#if defined(SESSIONKIT_TSAN)
void __tsan_acquire(void *address);
void __tsan_release(void *address);

void sessionkit_tsan_acquire(void *address) { __tsan_acquire(address); }
void sessionkit_tsan_release(void *address) { __tsan_release(address); }
#else
void sessionkit_tsan_acquire(void *address) { (void)address; }
void sessionkit_tsan_release(void *address) { (void)address; }
#endif
