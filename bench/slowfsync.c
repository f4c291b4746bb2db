/* bench/slowfsync.c: an LD_PRELOAD shim that makes storage as slow to sync as an SD card.
 * Every fsync and fdatasync waits SLOWFSYNC_MS milliseconds (default 20) before the real
 * call; it counts them and, at exit, appends "fsyncs N delayed_ms M" to SLOWFSYNC_REPORT
 * when that names a file (processes that made none append nothing).
 *
 *     gcc -O2 -shared -fPIC -o slowfsync.so bench/slowfsync.c -ldl
 *     LD_PRELOAD=$PWD/slowfsync.so overland-sync --now
 *
 * An SD card takes 5 to 50 ms per fsync (issue 25); 20 ms is the middle of that. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static atomic_long calls;
static long delay_ms = -1;

static void wait_like_a_card(void) {
    if (delay_ms < 0) {
        const char *text = getenv("SLOWFSYNC_MS");
        delay_ms = text ? strtol(text, NULL, 10) : 20;
        if (delay_ms < 0) delay_ms = 0;
    }
    atomic_fetch_add(&calls, 1);
    struct timespec left = {delay_ms / 1000, (delay_ms % 1000) * 1000000L};
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {}
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    int saved = errno;
    wait_like_a_card();
    errno = saved;
    return real(fd);
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    int saved = errno;
    wait_like_a_card();
    errno = saved;
    return real(fd);
}

__attribute__((destructor)) static void report(void) {
    const char *path = getenv("SLOWFSYNC_REPORT");
    long count = atomic_load(&calls);
    if (!path || !*path || count == 0) return;
    FILE *file = fopen(path, "a");
    if (!file) return;
    fprintf(file, "fsyncs %ld delayed_ms %ld\n", count, count * (delay_ms < 0 ? 0 : delay_ms));
    fclose(file);
}
