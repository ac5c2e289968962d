/* fortify_shim.c: Debian's libseccomp.a, libnl-*.a and libjansson.a were compiled against
 * glibc with _FORTIFY_SOURCE, so they call glibc's checked variants of a few
 * libc functions.  musl has none of them; these map each to musl's function
 * and keep the bounds check the compiler asked for (abort on overflow, as
 * glibc's __chk_fail would).  Linked into the musl builds of cordon and
 * cordon-inner only; the glibc builds have the real ones. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int __fprintf_chk(FILE *f, int flag, const char *fmt, ...);
int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap);
int __printf_chk(int flag, const char *fmt, ...);
int __snprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, ...);
int __sprintf_chk(char *s, int flag, size_t slen, const char *fmt, ...);
int __vasprintf_chk(char **s, int flag, const char *fmt, va_list ap);
int __asprintf_chk(char **s, int flag, const char *fmt, ...);
void *__memcpy_chk(void *dst, const void *src, size_t n, size_t dstlen);
int __vsnprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, va_list ap);
char *__strncpy_chk(char *dst, const char *src, size_t n, size_t dstlen);

int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap)
{
	(void)flag;
	return vfprintf(f, fmt, ap);
}

int __fprintf_chk(FILE *f, int flag, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = __vfprintf_chk(f, flag, fmt, ap);
	va_end(ap);
	return r;
}

int __printf_chk(int flag, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = __vfprintf_chk(stdout, flag, fmt, ap);
	va_end(ap);
	return r;
}

int __snprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, ...)
{
	(void)flag;
	if (n > slen)
		abort();
	va_list ap;
	va_start(ap, fmt);
	int r = vsnprintf(s, n, fmt, ap);
	va_end(ap);
	return r;
}

int __vsnprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, va_list ap)
{
	(void)flag;
	if (n > slen)
		abort();
	return vsnprintf(s, n, fmt, ap);
}

int __sprintf_chk(char *s, int flag, size_t slen, const char *fmt, ...)
{
	(void)flag;
	if (slen == 0 || slen > (size_t)0x7fffffff)
		slen = 0x7fffffff;
	va_list ap;
	va_start(ap, fmt);
	int r = vsnprintf(s, slen, fmt, ap);
	va_end(ap);
	if (r >= 0 && (size_t)r >= slen)
		abort();
	return r;
}

int __vasprintf_chk(char **s, int flag, const char *fmt, va_list ap)
{
	(void)flag;
	return vasprintf(s, fmt, ap);
}

int __asprintf_chk(char **s, int flag, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = __vasprintf_chk(s, flag, fmt, ap);
	va_end(ap);
	return r;
}

void *__memcpy_chk(void *dst, const void *src, size_t n, size_t dstlen)
{
	if (n > dstlen)
		abort();
	return memcpy(dst, src, n);
}

char *__strncpy_chk(char *dst, const char *src, size_t n, size_t dstlen)
{
	if (n > dstlen)
		abort();
	return strncpy(dst, src, n);
}
