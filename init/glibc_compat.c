// Debian's static libbpf/libelf/zlib/zstd (and arm64 libc++) archives were compiled against glibc with
// _FORTIFY_SOURCE. Linked with musl they need glibc's checked variants; these do the
// same checks (abort on overflow) and then call musl's plain functions.
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

static _Noreturn void chk_fail(void) {
    static const char msg[] = "*** buffer overflow detected ***: terminated\n";
    fputs(msg, stderr);
    abort();
}

static void check(size_t need, size_t have) {
    if (need > have)
        chk_fail();
}

// glibc's __X_chk(dst, src, n, dstlen) for the copies of n elements: X, once n fits.
#define CHECKED_COPY(type, plain)                                                      \
    type *__##plain##_chk(type *dst, const type *src, size_t n, size_t dstlen) {       \
        check(n, dstlen);                                                              \
        return plain(dst, src, n);                                                     \
    }
CHECKED_COPY(void, memcpy)
CHECKED_COPY(void, memmove)
CHECKED_COPY(wchar_t, wmemcpy)
CHECKED_COPY(wchar_t, wmemmove)

char *__strcpy_chk(char *dst, const char *src, size_t dstlen) {
    check(strlen(src) + 1, dstlen);
    return strcpy(dst, src);
}

char *__strcat_chk(char *dst, const char *src, size_t dstlen) {
    check(strlen(dst) + strlen(src) + 1, dstlen);
    return strcat(dst, src);
}

// The format functions take an extra 'flag' (fortify level): checking %n is glibc's
// business; the buffer-size checks are what matter here.
int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap) {
    (void)flag;
    return vfprintf(f, fmt, ap);
}

int __fprintf_chk(FILE *f, int flag, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = __vfprintf_chk(f, flag, fmt, ap);
    va_end(ap);
    return n;
}

int __vsnprintf_chk(char *s, size_t maxlen, int flag, size_t slen, const char *fmt, va_list ap) {
    (void)flag;
    check(maxlen, slen);
    return vsnprintf(s, maxlen, fmt, ap);
}

int __snprintf_chk(char *s, size_t maxlen, int flag, size_t slen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = __vsnprintf_chk(s, maxlen, flag, slen, fmt, ap);
    va_end(ap);
    return n;
}

int __sprintf_chk(char *s, int flag, size_t slen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    // vsnprintf bounded by the object size: an overflow is caught, not written.
    int n = vsnprintf(s, slen, fmt, ap);
    va_end(ap);
    (void)flag;
    if (n >= 0 && (size_t)n >= slen)
        chk_fail();
    return n;
}

int __vdprintf_chk(int fd, int flag, const char *fmt, va_list ap) {
    (void)flag;
    return vdprintf(fd, fmt, ap);
}

char *__realpath_chk(const char *path, char *resolved, size_t resolvedlen) {
    if (resolved)
        check(PATH_MAX, resolvedlen);
    return realpath(path, resolved);
}

// glibc's large-file alias; musl's off_t is always 64-bit.
int fcntl64(int fd, int cmd, ...) {
    va_list ap;
    va_start(ap, cmd);
    long arg = va_arg(ap, long);
    va_end(ap);
    return fcntl(fd, cmd, arg);
}

void *rawmemchr(const void *s, int c) {
    const unsigned char *p = s;
    while (*p != (unsigned char)c)
        p++;
    return (void *)p;
}

int __vasprintf_chk(char **out, int flag, const char *fmt, va_list ap) {
    (void)flag;
    return vasprintf(out, fmt, ap);
}

// Debian's libc++ was built against glibc, whose strto*_l musl lacks; musl's locales
// are all "C" for numbers, so the plain functions are equivalent.
#include <locale.h>
long long strtoll_l(const char *s, char **end, int base, locale_t loc) {
    (void)loc;
    return strtoll(s, end, base);
}

unsigned long long strtoull_l(const char *s, char **end, int base, locale_t loc) {
    (void)loc;
    return strtoull(s, end, base);
}
