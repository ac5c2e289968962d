/* termsafe.h: text from the sandbox shown on the caller's terminal.
 *
 * A name the command chose (a ref, a file name) reaches cordon's stderr,
 * which is often the user's terminal: an ESC there starts a control
 * sequence (erase the line, move the cursor, change the title), a CR or a
 * few backspaces rewrite what cordon said ("all clean").  Each byte that
 * could act on a terminal is shown as an escape instead; the result is
 * plain printable text, and distinct inputs stay distinct (a backslash
 * itself is doubled).
 *
 * Shown as is: printable ASCII, and UTF-8 sequences of printable
 * characters.  Escaped as \xHH, byte by byte: C0 controls and DEL, bytes
 * that are not well-formed UTF-8 (overlong, surrogates, truncated), the
 * C1 controls U+0080..U+009F (0x9B is a CSI on some terminals), and the
 * bidirectional format characters (U+061C, U+200E, U+200F, U+202A..U+202E,
 * U+2066..U+2069), which reorder what is displayed around them. */
#ifndef CORDON_TERMSAFE_H
#define CORDON_TERMSAFE_H

#include <stddef.h>
#include <stdio.h>

/* s (n bytes), escaped, into out (cap > 0 bytes, always NUL-terminated;
 * cut short at a whole escape when it does not fit).  Returns the length
 * the whole result needs (without the NUL), as snprintf does. */
size_t termsafe(char *out, size_t cap, const char *s, size_t n);

/* s (NUL-terminated), escaped, to f. */
void termsafe_fputs(FILE *f, const char *s);

#endif
