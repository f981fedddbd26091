/* lex.c — source bytes -> tokens.
 *
 * Python 3.11 lexical rules: NEWLINE/INDENT/DEDENT like CPython's tokenizer,
 * names (ASCII and UTF-8), keywords, all number forms, all string forms with
 * escapes decoded, operators by longest match. Before tokenizing, the source
 * encoding is settled: a UTF-8 BOM is skipped, a PEP 263 declaration in line 1
 * or 2 is honoured (utf-8, latin-1 (transcoded to UTF-8), ascii), and the
 * bytes are validated (invalid UTF-8 and NUL bytes are KILN002).
 *
 * The source is a byte buffer that need not be NUL-terminated: every access
 * goes through an index checked against its length. */
#include "kiln.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const tok_names[KL_NUM_TOKS] = {
#define X(name, text) #name,
    KL_TOKENS(X)
#undef X
};

static const char *const tok_texts[KL_NUM_TOKS] = {
#define X(name, text) text,
    KL_TOKENS(X)
#undef X
};

const char *kl_tok_text(KlTokKind kind) {
  if ((int)kind < 0 || kind >= KL_NUM_TOKS) return "?";
  return tok_texts[kind];
}

#define MAX_INDENT 100
#define MAX_PAREN 200
#define TABSIZE 8

typedef struct {
  KlCtx *ctx;
  const unsigned char *s;
  size_t n;
  size_t i;       /* scan position */
  int line;       /* line of position i */
  size_t lstart;  /* index of the first byte of that line */
  size_t cpos;    /* column cache: byte index cpos on line `cline` has column ccol */
  int cline, ccol;
  KlToken *toks;
  int ntoks, cap;
  KlLoc last_end; /* end of the last real token */
  bool line_has_tokens;
  int indstack[MAX_INDENT + 1], altstack[MAX_INDENT + 1], indent;
  KlTokKind parenkind[MAX_PAREN];
  KlLoc parenloc[MAX_PAREN];
  int depth;
} Lx;

/* Byte at index k, or -1 past the end. */
static int C(const Lx *L, size_t k) { return k < L->n ? L->s[k] : -1; }

static bool is_cont(int c) { return (c & 0xC0) == 0x80; }
static bool is_nl(int c) { return c == '\n' || c == '\r'; }

/* Location of index k, which must be on the current line (k >= lstart). */
static KlLoc loc_at(Lx *L, size_t k) {
  if (L->cline != L->line || L->cpos < L->lstart || k < L->cpos) {
    L->cline = L->line;
    L->cpos = L->lstart;
    L->ccol = 1;
  }
  for (; L->cpos < k && L->cpos < L->n; L->cpos++)
    if (!is_cont(L->s[L->cpos])) L->ccol++;
  return (KlLoc){L->line, L->ccol};
}

/* Location of index to, walking forward from index from with location at. */
static KlLoc loc_scan(const Lx *L, KlLoc at, size_t from, size_t to) {
  for (size_t k = from; k < to && k < L->n; k++) {
    int c = L->s[k];
    if (c == '\n' || (c == '\r' && C(L, k + 1) != '\n')) {
      at.line++;
      at.col = 1;
    } else if (c != '\r' && !is_cont(c)) {
      at.col++;
    }
  }
  return at;
}

/* s[k] is '\n' or '\r': consumes the line ending, returns the index after it. */
static size_t eat_newline(Lx *L, size_t k) {
  if (L->s[k] == '\r' && C(L, k + 1) == '\n') k++;
  k++;
  L->line++;
  L->lstart = k;
  return k;
}

/* Decodes one code point of (validated) UTF-8 at k; *len gets its byte length. */
static uint32_t decode_cp(const Lx *L, size_t k, int *len) {
  int c = L->s[k];
  int need = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
  uint32_t cp = need == 0 ? (uint32_t)c : need == 1 ? (uint32_t)(c & 0x1F) : need == 2 ? (uint32_t)(c & 0x0F) : (uint32_t)(c & 0x07);
  int got = 1;
  for (int j = 1; j <= need; j++) {
    int d = C(L, k + (size_t)j);
    if (d < 0 || !is_cont(d)) break;
    cp = (cp << 6) | (uint32_t)(d & 0x3F);
    got++;
  }
  *len = got;
  return cp;
}

/* Non-ASCII code points accepted in identifiers: anything letter-ish, i.e.
 * everything except the obvious punctuation, symbol, space and private-use
 * blocks. (Exact XID_Start/XID_Continue tables are not worth their size.) */
static bool uni_ident(uint32_t c) {
  if (c < 0x80) return false;
  if (c < 0xC0) return c == 0xAA || c == 0xB5 || c == 0xBA;
  if (c == 0xD7 || c == 0xF7) return false;
  if (c >= 0x2000 && c <= 0x206F) return c == 0x203F || c == 0x2040 || c == 0x2054;
  if (c >= 0x20A0 && c <= 0x20CF) return false;            /* currency */
  if (c >= 0x2190 && c <= 0x2BFF) return false;            /* arrows, math, boxes, symbols */
  if (c >= 0x2E00 && c <= 0x2E7F) return false;            /* supplemental punctuation */
  if (c >= 0x3000 && c <= 0x3004) return false;            /* CJK spaces and marks */
  if (c >= 0x3008 && c <= 0x3020) return false;            /* CJK brackets */
  if (c >= 0xD800 && c <= 0xF8FF) return false;            /* surrogates, private use */
  if (c == 0xFEFF) return false;                           /* BOM / ZWNBSP */
  if (c >= 0xFF01 && c <= 0xFF0F) return false;            /* fullwidth punctuation */
  if (c >= 0xFFF0 && c <= 0xFFFF) return false;            /* specials */
  if (c >= 0x1F000 && c <= 0x1FAFF) return false;          /* emoji and pictographs */
  if (c >= 0xE0000) return false;                          /* tags, private use planes */
  return true;
}

static bool is_ascii_ident_start(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_ascii_ident(int c) { return is_ascii_ident_start(c) || (c >= '0' && c <= '9'); }
static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_hex(int c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
static int hex_val(int c) { return is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10; }

/* ------------------------------------------------------------------ tokens */

static KlToken *emit(Lx *L, KlTokKind k, size_t start, size_t len, KlLoc loc) {
  if (L->ntoks == L->cap) {
    int ncap = L->cap ? L->cap * 2 : 256;
    KlToken *nt = kl_alloc(L->ctx, (size_t)ncap * sizeof *nt);
    if (L->ntoks) memcpy(nt, L->toks, (size_t)L->ntoks * sizeof *nt);
    L->toks = nt;
    L->cap = ncap;
  }
  KlToken *t = &L->toks[L->ntoks++];
  memset(t, 0, sizeof *t);
  t->kind = k;
  t->loc = loc;
  t->start = (const char *)L->s + start;
  t->len = len;
  return t;
}

/* Called after a real token ending at L->i. */
static void token_done(Lx *L) {
  L->line_has_tokens = true;
  L->last_end = loc_at(L, L->i);
}

static _Noreturn void invalid_char(Lx *L, size_t k) {
  KlLoc loc = loc_at(L, k);
  int c = L->s[k];
  if (c < 0x80) {
    if (c > 0x20 && c < 0x7F) kl_fatal(L->ctx, KL_KILN001, loc, "invalid character '%c' (U+%04X)", c, c);
    kl_fatal(L->ctx, KL_KILN001, loc, "invalid non-printable character U+%04X", c);
  }
  int len;
  uint32_t cp = decode_cp(L, k, &len);
  kl_fatal(L->ctx, KL_KILN001, loc, "invalid character '%.*s' (U+%04X)", len, (const char *)L->s + k, (unsigned)cp);
}

/* ------------------------------------------------------------------ numbers */

static _Noreturn void num_error(Lx *L, size_t k, const char *what) {
  kl_fatal(L->ctx, KL_KILN001, loc_at(L, k), "invalid %s literal", what);
}

/* CPython's verify_end_of_number: a number may be directly followed by a few
 * keywords (deprecated but valid), otherwise not by an identifier character. */
static void verify_end(Lx *L, size_t k, const char *what) {
  int c = C(L, k);
  static const char *const kws[] = {"and", "else", "for", "if", "in", "is", "or", "not"};
  for (size_t j = 0; j < sizeof kws / sizeof kws[0]; j++) {
    size_t m = strlen(kws[j]);
    if (k + m <= L->n && memcmp(L->s + k, kws[j], m) == 0) return;
  }
  if (c >= 0 && c < 0x80 && is_ascii_ident(c)) num_error(L, k, what);
}

/* Digits with single underscores between them, starting at a digit. Returns
 * the index after the last digit. */
static size_t decimal_tail(Lx *L, size_t k) {
  for (;;) {
    while (is_digit(C(L, k))) k++;
    if (C(L, k) != '_') return k;
    k++;
    if (!is_digit(C(L, k))) num_error(L, k - 1, "decimal");
  }
}

static size_t radix_digits(Lx *L, size_t k, int radix, const char *what) {
  for (;;) {
    if (C(L, k) == '_') k++;
    int c = C(L, k);
    bool ok = radix == 16 ? is_hex(c) : radix == 8 ? (c >= '0' && c <= '7') : (c == '0' || c == '1');
    if (!ok) {
      if (radix != 16 && is_digit(c))
        kl_fatal(L->ctx, KL_KILN001, loc_at(L, k), "invalid digit '%c' in %s literal", c, what);
      num_error(L, k, what);
    }
    for (;;) {
      c = C(L, k);
      ok = radix == 16 ? is_hex(c) : radix == 8 ? (c >= '0' && c <= '7') : (c == '0' || c == '1');
      if (!ok) break;
      k++;
    }
    if (C(L, k) != '_') break;
  }
  int c = C(L, k);
  if (radix != 16 && is_digit(c))
    kl_fatal(L->ctx, KL_KILN001, loc_at(L, k), "invalid digit '%c' in %s literal", c, what);
  return k;
}

static void int_value(KlToken *t, size_t skip, int radix) {
  uint64_t v = 0;
  bool big = false;
  for (size_t k = skip; k < t->len; k++) {
    char c = t->start[k];
    if (c == '_') continue;
    uint64_t d = (uint64_t)hex_val((unsigned char)c);
    if (v > (UINT64_C(0x7FFFFFFFFFFFFFFF) - d) / (uint64_t)radix) {
      big = true;
      break;
    }
    v = v * (uint64_t)radix + d;
  }
  t->big = big;
  t->ival = big ? 0 : (int64_t)v;
}

static double float_value(Lx *L, const char *text, size_t len) {
  char *buf = kl_alloc(L->ctx, len + 1);
  size_t m = 0;
  for (size_t k = 0; k < len; k++)
    if (text[k] != '_' && text[k] != 'j' && text[k] != 'J') buf[m++] = text[k];
  buf[m] = 0;
  return strtod(buf, NULL);
}

static void lex_number(Lx *L) {
  size_t start = L->i, k = start;
  KlLoc loc = loc_at(L, start);
  bool is_float = false, imag = false;
  int radix = 10;
  int c = C(L, k);
  if (c == '0' && (C(L, k + 1) == 'x' || C(L, k + 1) == 'X')) {
    radix = 16;
    k = radix_digits(L, k + 2, 16, "hexadecimal");
    verify_end(L, k, "hexadecimal");
  } else if (c == '0' && (C(L, k + 1) == 'o' || C(L, k + 1) == 'O')) {
    radix = 8;
    k = radix_digits(L, k + 2, 8, "octal");
    verify_end(L, k, "octal");
  } else if (c == '0' && (C(L, k + 1) == 'b' || C(L, k + 1) == 'B')) {
    radix = 2;
    k = radix_digits(L, k + 2, 2, "binary");
    verify_end(L, k, "binary");
  } else {
    bool frac_only = c == '.';
    bool nonzero = false;
    size_t zeros_end = k;
    if (frac_only) {
      k++; /* the '.' ; a digit follows */
    } else if (c == '0') {
      k++;
      for (;;) {
        if (C(L, k) == '_') {
          k++;
          if (!is_digit(C(L, k))) num_error(L, k - 1, "decimal");
        }
        if (C(L, k) != '0') break;
        k++;
      }
      zeros_end = k;
      if (is_digit(C(L, k))) {
        nonzero = true;
        k = decimal_tail(L, k);
      }
    } else {
      k = decimal_tail(L, k);
    }
    if (!frac_only && C(L, k) == '.') {
      k++;
      is_float = true;
      if (is_digit(C(L, k))) k = decimal_tail(L, k);
    } else if (frac_only) {
      is_float = true;
      k = decimal_tail(L, k);
    }
    int e = C(L, k);
    bool exp_ok = false;
    if (e == 'e' || e == 'E') {
      int s1 = C(L, k + 1);
      if (s1 == '+' || s1 == '-') {
        if (!is_digit(C(L, k + 2))) num_error(L, k + 2, "decimal");
        k = decimal_tail(L, k + 2);
        exp_ok = true;
      } else if (is_digit(s1)) {
        k = decimal_tail(L, k + 1);
        exp_ok = true;
      }
      if (exp_ok) is_float = true;
    }
    c = C(L, k);
    if (c == 'j' || c == 'J') {
      imag = true;
      k++;
      verify_end(L, k, "imaginary");
    } else {
      if (nonzero && !is_float)
        kl_fatal(L->ctx, KL_KILN001, loc_at(L, zeros_end),
                 "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers");
      verify_end(L, k, "decimal");
    }
  }
  L->i = k;
  KlTokKind kind = imag ? KL_TOK_IMAG : is_float ? KL_TOK_FLOAT : KL_TOK_INT;
  KlToken *t = emit(L, kind, start, k - start, loc);
  if (kind == KL_TOK_INT)
    int_value(t, radix == 10 ? 0 : 2, radix);
  else
    t->fval = float_value(L, t->start, t->len);
  token_done(L);
}

/* ------------------------------------------------------------------ strings */

enum { SF_RAW = 1, SF_BYTES = 2, SF_F = 4 };

/* Is s[a..b) a valid string prefix? Returns the flags + 8, or 0. */
static int string_prefix(const Lx *L, size_t a, size_t b) {
  size_t len = b - a;
  if (len < 1 || len > 2) return 0;
  int flags = 0, seen_u = 0;
  for (size_t k = a; k < b; k++) {
    int c = L->s[k] | 0x20;
    int f = c == 'r' ? SF_RAW : c == 'b' ? SF_BYTES : c == 'f' ? SF_F : c == 'u' ? 0 : -1;
    if (f < 0) return 0;
    if (c == 'u') seen_u = 1;
    if (f && (flags & f)) return 0;
    flags |= f;
  }
  if (seen_u && len != 1) return 0;
  if ((flags & SF_BYTES) && (flags & SF_F)) return 0;
  return flags + 8;
}

/* A string's text is kept as UTF-8, a lone surrogate (\ud800, valid in a
 * Python str) encoded as if it were a character: the generated module decodes
 * its strings with "surrogatepass". */
static size_t put_utf8(char *out, size_t m, uint32_t cp) {
  if (cp < 0x80) {
    out[m++] = (char)cp;
  } else if (cp < 0x800) {
    out[m++] = (char)(0xC0 | (cp >> 6));
    out[m++] = (char)(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out[m++] = (char)(0xE0 | (cp >> 12));
    out[m++] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[m++] = (char)(0x80 | (cp & 0x3F));
  } else {
    out[m++] = (char)(0xF0 | (cp >> 18));
    out[m++] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[m++] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[m++] = (char)(0x80 | (cp & 0x3F));
  }
  return m;
}

/* The code point of the \N{NAME} escape whose backslash is at bs, in a
 * str's text that ends at ce; *k goes past the escape. The errors are
 * CPython's (its unicode-escape codec's reasons), located at the escape. */
static uint32_t named_char(const Lx *L, KlLoc loc, size_t start, size_t bs, size_t ce, size_t *k) {
  const KlNameHook *h = &L->ctx->names;
  KlLoc at = loc_scan(L, loc, start, bs);
  size_t from = bs + 3, to = from; /* the name: s[from, to) */
  if (from > ce || L->s[bs + 2] != '{') kl_fatal(L->ctx, KL_KILN001, at, "malformed \\N character escape");
  while (to < ce && L->s[to] != '}') to++;
  if (to == ce || to == from) kl_fatal(L->ctx, KL_KILN001, at, "malformed \\N character escape");
  if (!h->lookup)
    kl_fatal(L->ctx, KL_KILN001, at,
             "a \\N{...} character name is resolved by the Python that builds the module "
             "(`kiln build`); kilnc has no name database");
  uint32_t cp = 0;
  /* No Unicode name is near KL_MAX_CHAR_NAME long: a longer one is unknown
   * without asking (and the hook gets a bounded text). */
  if (to - from > KL_MAX_CHAR_NAME || !h->lookup(h->user, (const char *)L->s + from, to - from, &cp) ||
      cp > 0x10FFFF)
    kl_fatal(L->ctx, KL_KILN001, at, "unknown Unicode character name");
  *k = to + 1;
  return cp;
}

/* Decodes the string text s[cs, ce) (escapes unless raw; bytes or UTF-8)
 * into out, which has room for ce - cs bytes; returns the length. loc and
 * start locate the token, for errors. */
static size_t decode_text(const Lx *L, KlLoc loc, size_t start, size_t cs, size_t ce, bool raw, bool bytes, char *out) {
  size_t m = 0, k = cs;
  while (k < ce) {
    int c = L->s[k];
    if (c == '\r') {
      out[m++] = '\n';
      k++;
      if (k < ce && L->s[k] == '\n') k++;
      continue;
    }
    if (c >= 0x80 && bytes)
      kl_fatal(L->ctx, KL_KILN001, loc_scan(L, loc, start, k), "bytes can only contain ASCII literal characters");
    if (c != '\\' || raw) {
      out[m++] = (char)c;
      k++;
      continue;
    }
    /* A backslash is always followed by at least one content byte (pass 1). */
    int d = C(L, k + 1);
    size_t bs = k;
    k += 2;
    switch (d) {
    case '\n': break;
    case '\r':
      if (k < ce && L->s[k] == '\n') k++;
      break;
    case '\\': case '\'': case '"': out[m++] = (char)d; break;
    case 'a': out[m++] = '\a'; break;
    case 'b': out[m++] = '\b'; break;
    case 'f': out[m++] = '\f'; break;
    case 'n': out[m++] = '\n'; break;
    case 'r': out[m++] = '\r'; break;
    case 't': out[m++] = '\t'; break;
    case 'v': out[m++] = '\v'; break;
    case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
      uint32_t v = (uint32_t)(d - '0');
      for (int j = 0; j < 2 && k < ce && L->s[k] >= '0' && L->s[k] <= '7'; j++, k++) v = v * 8 + (uint32_t)(L->s[k] - '0');
      if (bytes)
        out[m++] = (char)(v & 0xFF);
      else
        m = put_utf8(out, m, v);
      break;
    }
    case 'x': case 'u': case 'U': {
      if (bytes && d != 'x') {
        out[m++] = '\\';
        out[m++] = (char)d;
        break;
      }
      int nd = d == 'x' ? 2 : d == 'u' ? 4 : 8;
      uint32_t v = 0;
      for (int j = 0; j < nd; j++, k++) {
        if (k >= ce || !is_hex(L->s[k]))
          kl_fatal(L->ctx, KL_KILN001, loc_scan(L, loc, start, bs), "truncated \\%s escape",
                   d == 'x' ? "xXX" : d == 'u' ? "uXXXX" : "UXXXXXXXX");
        v = v * 16 + (uint32_t)hex_val(L->s[k]);
      }
      if (bytes) {
        out[m++] = (char)v;
      } else {
        if (v > 0x10FFFF)
          kl_fatal(L->ctx, KL_KILN001, loc_scan(L, loc, start, bs), "illegal Unicode character in \\U escape");
        m = put_utf8(out, m, v);
      }
      break;
    }
    case 'N':
      if (!bytes) { /* \N{NAME} is 5 bytes or more, its UTF-8 at most 4: out has room */
        m = put_utf8(out, m, named_char(L, loc, start, bs, ce, &k));
        break;
      }
      /* bytes keep \N verbatim: */
      /* fallthrough */
    default:
      /* Unknown escape: kept verbatim; the character after the backslash is
       * processed normally (it may be non-ASCII). */
      out[m++] = '\\';
      k = bs + 1;
      break;
    }
  }
  return m;
}

/* ---- where an f-string ends ----
 * Python 3.12 (PEP 701) lets a replacement field hold any expression:
 * strings in the same quotes as the f-string, nested f-strings, comments
 * and line breaks. Its end is found by scanning the fields; for f-strings
 * older Pythons accept, that ends where the first closing quote does.
 * SIZE_MAX: the scan found no end (the caller falls back to the first
 * closing quote, and its errors). */

enum { FSTRING_NEST_MAX = 32 };

static size_t fbody_end(const Lx *L, size_t k, int quote, bool triple, bool raw, int nest);

/* Past the string literal whose opening quote is at q (flags: its
 * prefix's), or SIZE_MAX. */
static size_t literal_end(const Lx *L, size_t q, int flags, int nest) {
  const int quote = L->s[q];
  const bool triple = C(L, q + 1) == quote && C(L, q + 2) == quote;
  const size_t close = triple ? 3 : 1;
  size_t k = q + close;
  if (flags & SF_F) {
    size_t e = nest < FSTRING_NEST_MAX ? fbody_end(L, k, quote, triple, flags & SF_RAW, nest + 1) : SIZE_MAX;
    return e == SIZE_MAX ? SIZE_MAX : e + close;
  }
  for (;;) {
    int c = C(L, k);
    if (c < 0 || (!triple && is_nl(c))) return SIZE_MAX;
    if (c == '\\') {
      k += C(L, k + 1) == '\r' && C(L, k + 2) == '\n' ? 3 : C(L, k + 1) >= 0 ? 2 : 1;
      continue;
    }
    if (c == quote && (!triple || (C(L, k + 1) == quote && C(L, k + 2) == quote))) return k + close;
    k++;
  }
}

/* Inside a field's expression at k: past the string literal (any prefix)
 * starting there; k when none starts there; SIZE_MAX when it does not end. */
static size_t field_literal_end(const Lx *L, size_t k, int nest) {
  int c = C(L, k);
  if (c == '\'' || c == '"') return literal_end(L, k, 0, nest);
  if (!is_ascii_ident_start(c)) return k;
  size_t j = k;
  while (is_ascii_ident(C(L, j))) j++;
  int flags = string_prefix(L, k, j);
  if (flags && (C(L, j) == '\'' || C(L, j) == '"')) return literal_end(L, j, flags - 8, nest);
  return j; /* a name */
}

static size_t field_end(const Lx *L, size_t k, int quote, bool triple, bool raw, int nest);

/* Past the '}' of a \N{NAME} whose name starts at k; at the f-string's
 * closing quote (or a single-quoted one's line end) when the name runs
 * into it, so a malformed escape cannot move the string's end. */
static size_t char_name_end(const Lx *L, size_t k, int quote, bool triple) {
  for (;; k++) {
    int c = C(L, k);
    if (c < 0 || (!triple && is_nl(c))) return k;
    if (c == quote && (!triple || (C(L, k + 1) == quote && C(L, k + 2) == quote))) return k;
    if (c == '}') return k + 1;
  }
}

/* A format spec from k: past the '}' that ends its field, or SIZE_MAX. */
static size_t spec_end(const Lx *L, size_t k, int quote, bool triple, bool raw, int nest) {
  for (;;) {
    int c = C(L, k);
    if (c < 0 || (!triple && is_nl(c))) return SIZE_MAX;
    if (c == '}') return k + 1;
    if (c == '{') {
      if ((k = field_end(L, k + 1, quote, triple, raw, nest + 1)) == SIZE_MAX) return SIZE_MAX;
      continue;
    }
    if (c == quote && (!triple || (C(L, k + 1) == quote && C(L, k + 2) == quote))) return SIZE_MAX;
    if (c == '\\' && !raw && C(L, k + 1) == 'N' && C(L, k + 2) == '{') /* its '}' ends no field */
      k = char_name_end(L, k + 3, quote, triple);
    else
      k += c == '\\' && !raw ? 2 : 1;
  }
}

/* A replacement field from k (after its '{'): past its '}', or SIZE_MAX. */
static size_t field_end(const Lx *L, size_t k, int quote, bool triple, bool raw, int nest) {
  if (nest > FSTRING_NEST_MAX) return SIZE_MAX;
  int depth = 0;
  for (;;) {
    int c = C(L, k);
    if (c < 0) return SIZE_MAX;
    size_t past = field_literal_end(L, k, nest);
    if (past == SIZE_MAX) return SIZE_MAX;
    if (past != k) {
      k = past;
      continue;
    }
    if (c == '#') {
      while (k < L->n && !is_nl(L->s[k])) k++;
      continue;
    }
    if (c == '\\') {
      k += 2;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') depth++;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0) depth--;
    else if (c == '}') return k + 1;
    else if (c == ':' && depth == 0) return spec_end(L, k + 1, quote, triple, raw, nest);
    k++;
  }
}

/* An f-string's text from k: the index of its closing quote, or SIZE_MAX. */
static size_t fbody_end(const Lx *L, size_t k, int quote, bool triple, bool raw, int nest) {
  for (;;) {
    int c = C(L, k);
    if (c < 0 || (!triple && is_nl(c))) return SIZE_MAX;
    if (c == '\\') {
      int d = C(L, k + 1);
      if (!raw && d == 'N' && C(L, k + 2) == '{') { /* \N{NAME}: its braces are no field */
        k = char_name_end(L, k + 3, quote, triple);
      } else {
        k += raw && d != quote && d != '\\' ? 1 : d == '\r' && C(L, k + 2) == '\n' ? 3 : 2;
      }
      continue;
    }
    if (c == quote && (!triple || (C(L, k + 1) == quote && C(L, k + 2) == quote))) return k;
    if (c == '{' && C(L, k + 1) == '{') {
      k += 2;
      continue;
    }
    if (c == '{') {
      if ((k = field_end(L, k + 1, quote, triple, raw, nest)) == SIZE_MAX) return SIZE_MAX;
      continue;
    }
    k++;
  }
}

/* ---- f-string parts ----
 * An f-string's text is split here into literal text (decoded like a
 * string's) and replacement fields `{expr[=][!c][:spec]}`; the parser lexes
 * and parses each field's expression from its source range. CPython has
 * checked the syntax before kiln runs, so anything unusual (a backslash in
 * a field outside its strings, a brace after a backslash, fields nested in
 * a nested spec) is not parsed: fstring_parts returns NULL and the function
 * stays Python. A `\N{NAME}` in literal text (or a spec) is decoded like a
 * string's: its braces are no field. */

typedef struct {
  const Lx *L;
  KlLoc loc;    /* the token's location */
  size_t start; /* and offset */
  bool raw;
} FScan;

static void add_fpart(const Lx *L, KlFParts *v, int *cap, KlFPart part) {
  if (v->len == *cap) {
    *cap = *cap ? *cap * 2 : 4;
    KlFPart *items = kl_alloc(L->ctx, sizeof *items * (size_t)*cap);
    if (v->len) memcpy(items, v->items, sizeof *items * (size_t)v->len);
    v->items = items;
  }
  v->items[v->len++] = part;
}

/* Literal text s[from, to), decoded (a \N{NAME} in it is whole). */
static void add_fliteral(const FScan *f, KlFParts *v, int *cap, size_t from, size_t to) {
  if (from == to) return;
  char *out = kl_alloc(f->L->ctx, to - from + 1);
  size_t m = decode_text(f->L, f->loc, f->start, from, to, f->raw, false, out);
  add_fpart(f->L, v, cap, (KlFPart){.lit = out, .litlen = m});
}

static KlFParts *fstring_parts(const FScan *f, size_t from, size_t to, int nest, size_t *end);

/* The field whose text starts at k (after its '{'); returns the index after
 * its '}', or 0 when kiln does not parse it. */
static size_t fstring_field(const FScan *f, KlFParts *v, int *cap, size_t k, size_t to, int nest) {
  const Lx *L = f->L;
  const size_t e0 = k;
  int depth = 0;
  while (k < to) {
    int c = L->s[k];
    size_t past = field_literal_end(L, k, 0); /* a string (3.12: any quotes, nested f-strings) */
    if (past == SIZE_MAX || past > to) return 0;
    if (past != k) {
      k = past;
      continue;
    }
    if (c == '#') { /* 3.12: a comment, up to the line's end */
      while (k < to && !is_nl(L->s[k])) k++;
      continue;
    }
    if (c == '\\') return 0;
    if (c == '(' || c == '[' || c == '{') depth++;
    else if (c == ')' || c == ']' || (c == '}' && depth > 0)) depth--;
    else if (depth == 0) {
      if (c == '}' || c == ':') break;
      if (c == '!' || c == '=' || c == '<' || c == '>') {
        if (C(L, k + 1) == '=') { /* != == <= >= */
          k += 2;
          continue;
        }
        if (c == '!' || c == '=') break;
      }
    }
    k++;
  }
  size_t e1 = k;
  bool blank = true;
  for (size_t j = e0; j < e1 && blank; j++) blank = L->s[j] == ' ' || L->s[j] == '\t' || is_nl(L->s[j]);
  if (k >= to || blank) return 0;
  KlFPart part = {.expr_from = e0, .expr_to = e1, .expr_loc = loc_scan(L, f->loc, f->start, e0)};
  bool debug = false;
  if (L->s[k] == '=') { /* `{x = }`: the text up to here and its spaces, then the value */
    k++;
    while (k < to && (L->s[k] == ' ' || L->s[k] == '\t')) k++;
    char *text = kl_alloc(L->ctx, k - e0 + 1);
    size_t m = 0;
    for (size_t j = e0; j < k; j++) /* the source's line endings as Python reads them: \n */
      if (L->s[j] != '\r') text[m++] = (char)L->s[j];
      else if (C(L, j + 1) != '\n') text[m++] = '\n';
    add_fpart(L, v, cap, (KlFPart){.lit = text, .litlen = m});
    debug = true;
  }
  if (k < to && L->s[k] == '!') {
    int conv = C(L, k + 1);
    if (conv != 's' && conv != 'r' && conv != 'a') return 0;
    part.conv = conv;
    k += 2;
  }
  if (k < to && L->s[k] == ':') {
    if (nest > 0) return 0;
    part.spec = fstring_parts(f, k + 1, to, nest + 1, &k);
    if (!part.spec) return 0;
  }
  if (k >= to || L->s[k] != '}') return 0;
  if (debug && !part.conv && !part.spec) part.conv = 'r';
  add_fpart(L, v, cap, part);
  return k + 1;
}

/* The parts of s[from, to): the whole text (nest 0), or a format spec (nest
 * 1), which ends at an unmatched '}' whose index goes to *end. */
static KlFParts *fstring_parts(const FScan *f, size_t from, size_t to, int nest, size_t *end) {
  const Lx *L = f->L;
  KlFParts *v = kl_alloc(L->ctx, sizeof *v);
  memset(v, 0, sizeof *v);
  int cap = 0;
  size_t k = from, seg = from;
  while (k < to) {
    int c = L->s[k];
    if (c == '\\' && !f->raw) {
      int d = C(L, k + 1);
      if (d == '{' || d == '}') return NULL;
      k += 2;
      if (d == 'N' && k < to && L->s[k] == '{') { /* \N{NAME}: up to its '}' (decode_text checks it) */
        while (k < to && L->s[k] != '}') k++;
        if (k < to) k++;
      }
      continue;
    }
    if (c != '{' && c != '}') {
      k++;
      continue;
    }
    if (c == '}' && nest > 0) { /* a spec ends at its first '}' */
      add_fliteral(f, v, &cap, seg, k);
      *end = k;
      return v;
    }
    if (k + 1 < to && L->s[k + 1] == c) { /* {{ or }} */
      if (nest > 0) return NULL;
      add_fliteral(f, v, &cap, seg, k + 1);
      seg = k += 2;
      continue;
    }
    if (c == '}') return NULL; /* a lone '}' */
    add_fliteral(f, v, &cap, seg, k);
    k = fstring_field(f, v, &cap, k + 1, to, nest);
    if (!k) return NULL;
    seg = k;
  }
  if (nest > 0) return NULL;
  add_fliteral(f, v, &cap, seg, to);
  *end = to;
  return v;
}

/* start: first byte of the token (prefix); q: the opening quote. */
static void lex_string(Lx *L, size_t start, size_t q, int flags) {
  KlLoc loc = loc_at(L, start);
  int quote = L->s[q];
  bool triple = C(L, q + 1) == quote && C(L, q + 2) == quote;
  size_t cs = q + (triple ? 3 : 1), ce, k = cs;
  /* Pass 1: find the closing quote (past an f-string's fields). */
  const size_t fend = flags & SF_F ? fbody_end(L, cs, quote, triple, flags & SF_RAW, 0) : SIZE_MAX;
  if (fend != SIZE_MAX) {
    while (k < fend) k = is_nl(L->s[k]) ? eat_newline(L, k) : k + 1;
    ce = fend;
    k = fend + (triple ? 3 : 1);
  }
  while (fend == SIZE_MAX) {
    int c = C(L, k);
    if (c < 0 || ((c == '\n' || c == '\r') && !triple)) {
      /* Like CPython, a final line ending does not start a new line. */
      int line = c < 0 && k > 0 && is_nl(L->s[k - 1]) && L->line > 1 ? L->line - 1 : L->line;
      if (triple)
        kl_fatal(L->ctx, KL_KILN001, loc, "unterminated triple-quoted string literal (detected at line %d)", line);
      kl_fatal(L->ctx, KL_KILN001, loc, "unterminated string literal (detected at line %d)", line);
    }
    if (c == '\\') {
      int d = C(L, k + 1);
      if (d == '\n' || d == '\r')
        k = eat_newline(L, k + 1);
      else if (d >= 0)
        k += 2;
      else
        k++;
      continue;
    }
    if (c == '\n' || c == '\r') {
      k = eat_newline(L, k);
      continue;
    }
    if (c == quote && (!triple || (C(L, k + 1) == quote && C(L, k + 2) == quote))) {
      ce = k;
      k += triple ? 3 : 1;
      break;
    }
    k++;
  }
  L->i = k;
  KlTokKind kind = (flags & SF_BYTES) ? KL_TOK_BYTES : (flags & SF_F) ? KL_TOK_FSTRING : KL_TOK_STRING;
  KlToken *t = emit(L, kind, start, k - start, loc);
  if (kind == KL_TOK_FSTRING) {
    t->str = kl_strndup(L->ctx, (const char *)L->s + cs, ce - cs);
    t->slen = ce - cs;
    FScan f = {.L = L, .loc = loc, .start = start, .raw = flags & SF_RAW};
    size_t end;
    t->fparts = fstring_parts(&f, cs, ce, 0, &end);
    token_done(L);
    return;
  }
  /* Pass 2: decode. The result is never longer than the raw text. */
  bool bytes = flags & SF_BYTES, raw = flags & SF_RAW;
  char *out = kl_alloc(L->ctx, ce - cs + 1);
  size_t m = decode_text(L, loc, start, cs, ce, raw, bytes, out);
  out[m] = 0;
  t->str = out;
  t->slen = m;
  token_done(L);
}

/* ------------------------------------------------------------------ encoding */

enum { ENC_UTF8, ENC_LATIN1, ENC_ASCII };

/* Searches line s[a..b) for a PEP 263 declaration. */
static bool coding_in_line(const unsigned char *s, size_t a, size_t b, size_t *na, size_t *nb) {
  size_t k = a;
  while (k < b && (s[k] == ' ' || s[k] == '\t' || s[k] == '\f')) k++;
  if (k >= b || s[k] != '#') return false;
  for (; k + 7 <= b; k++) {
    if (memcmp(s + k, "coding", 6) != 0 || (s[k + 6] != ':' && s[k + 6] != '=')) continue;
    size_t j = k + 7;
    while (j < b && (s[j] == ' ' || s[j] == '\t')) j++;
    size_t e = j;
    while (e < b && (is_ascii_ident(s[e]) || s[e] == '-' || s[e] == '.')) e++;
    if (e > j) {
      *na = j;
      *nb = e;
      return true;
    }
  }
  return false;
}

static bool blank_or_comment_line(const unsigned char *s, size_t a, size_t b) {
  while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\f')) a++;
  return a >= b || s[a] == '#';
}

static size_t line_end(const unsigned char *s, size_t n, size_t a) {
  while (a < n && !is_nl(s[a])) a++;
  return a;
}

static size_t next_line(const unsigned char *s, size_t n, size_t e) {
  if (e < n && s[e] == '\r' && e + 1 < n && s[e + 1] == '\n') return e + 2;
  return e < n ? e + 1 : e;
}

static bool enc_is(const char *norm, const char *const *names) {
  for (; *names; names++)
    if (strcmp(norm, *names) == 0) return true;
  return false;
}

/* Location of byte k in s (counting code points of valid UTF-8 before it). */
static KlLoc byte_loc(const unsigned char *s, size_t k) {
  KlLoc loc = {1, 1};
  for (size_t j = 0; j < k; j++) {
    if (s[j] == '\n' || (s[j] == '\r' && s[j + 1] != '\n')) {
      loc.line++;
      loc.col = 1;
    } else if (s[j] != '\r' && !is_cont(s[j])) {
      loc.col++;
    }
  }
  return loc;
}

/* Length of the valid UTF-8 sequence at s[k], or 0. */
static int utf8_len(const unsigned char *s, size_t n, size_t k) {
  int c = s[k];
  if (c < 0x80) return 1;
  int need;
  int lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) need = 1;
  else if (c == 0xE0) need = 2, lo = 0xA0;
  else if (c == 0xED) need = 2, hi = 0x9F;
  else if (c >= 0xE1 && c <= 0xEF) need = 2;
  else if (c == 0xF0) need = 3, lo = 0x90;
  else if (c >= 0xF1 && c <= 0xF3) need = 3;
  else if (c == 0xF4) need = 3, hi = 0x8F;
  else return 0;
  if (n - k <= (size_t)need) return 0;
  for (int j = 1; j <= need; j++) {
    int d = s[k + (size_t)j];
    if (d < lo || d > hi) return 0;
    lo = 0x80, hi = 0xBF;
  }
  return need + 1;
}

static void prepare_source(KlCtx *ctx) {
  if (!ctx->src) {
    ctx->src = "";
    ctx->srclen = 0;
  }
  const unsigned char *s = (const unsigned char *)ctx->src;
  size_t n = ctx->srclen;
  bool bom = false;
  if (n >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF) {
    bom = true;
    s += 3;
    n -= 3;
    ctx->src = (const char *)s;
    ctx->srclen = n;
  }
  /* PEP 263: line 1, or line 2 when line 1 is blank or a comment. */
  int enc = ENC_UTF8;
  size_t na = 0, nb = 0;
  size_t e1 = line_end(s, n, 0);
  bool found = coding_in_line(s, 0, e1, &na, &nb);
  if (!found && blank_or_comment_line(s, 0, e1) && e1 < n) {
    size_t a2 = next_line(s, n, e1);
    found = coding_in_line(s, a2, line_end(s, n, a2), &na, &nb);
  }
  if (found) {
    char norm[64];
    size_t len = nb - na;
    size_t m = len < sizeof norm - 1 ? len : sizeof norm - 1;
    for (size_t j = 0; j < m; j++) {
      char c = (char)s[na + j];
      if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
      if (c == '_') c = '-';
      norm[j] = c;
    }
    norm[m] = 0;
    static const char *const utf8[] = {"utf-8", "utf8", NULL};
    static const char *const latin1[] = {"latin-1", "latin1", "iso-8859-1", "iso8859-1", "iso-latin-1", NULL};
    static const char *const ascii[] = {"ascii", "us-ascii", NULL};
    if (len >= sizeof norm - 1) {
      enc = -1;
    } else if (enc_is(norm, utf8)) {
      enc = ENC_UTF8;
    } else if (enc_is(norm, latin1)) {
      enc = ENC_LATIN1;
    } else if (enc_is(norm, ascii)) {
      enc = ENC_ASCII;
    } else {
      enc = -1;
    }
    if (enc < 0)
      kl_fatal(ctx, KL_KILN002, byte_loc(s, na), "unsupported source encoding '%.*s'", (int)len, (const char *)s + na);
    if (bom && enc != ENC_UTF8)
      kl_fatal(ctx, KL_KILN002, byte_loc(s, na), "encoding problem: '%.*s' with a UTF-8 BOM", (int)len,
               (const char *)s + na);
  }
  /* Validate. Lines and columns are tracked as we go. */
  KlLoc loc = {1, 1};
  size_t high = 0;
  for (size_t k = 0; k < n;) {
    int c = s[k];
    if (c == 0) kl_fatal(ctx, KL_KILN002, loc, "source code cannot contain null bytes");
    int len = 1;
    if (c >= 0x80) {
      if (enc == ENC_ASCII)
        kl_fatal(ctx, KL_KILN002, loc, "non-ASCII byte 0x%02x in a source declared as '%.*s'", c, (int)(nb - na),
                 (const char *)s + na);
      if (enc == ENC_LATIN1) {
        high++;
      } else {
        len = utf8_len(s, n, k);
        if (!len) kl_fatal(ctx, KL_KILN002, loc, "invalid UTF-8 byte 0x%02x in source", c);
      }
    }
    if (c == '\n' || (c == '\r' && !(k + 1 < n && s[k + 1] == '\n'))) {
      loc.line++;
      loc.col = 1;
    } else if (c != '\r') {
      loc.col++;
    }
    k += (size_t)len;
  }
  if (enc == ENC_LATIN1 && high) {
    char *buf = kl_alloc(ctx, n + high + 1);
    size_t m = 0;
    for (size_t k = 0; k < n; k++) m = put_utf8(buf, m, s[k]);
    ctx->src = buf;
    ctx->srclen = m;
  }
}

/* ------------------------------------------------------------------ main loop */

static KlTokKind keyword(const unsigned char *s, size_t len) {
  for (int k = KL_TOK_KW_FALSE; k <= KL_TOK_KW_YIELD; k++)
    if (strlen(tok_texts[k]) == len && memcmp(tok_texts[k], s, len) == 0) return (KlTokKind)k;
  return KL_TOK_NAME;
}

static void lex_name(Lx *L) {
  size_t start = L->i, k = start;
  while (k < L->n) {
    int c = L->s[k];
    if (c < 0x80) {
      if (!is_ascii_ident(c)) break;
      k++;
    } else {
      int len;
      uint32_t cp = decode_cp(L, k, &len);
      if (!uni_ident(cp)) break;
      k += (size_t)len;
    }
  }
  int q = C(L, k);
  if (q == '\'' || q == '"') {
    int f = string_prefix(L, start, k);
    if (f) {
      lex_string(L, start, k, f - 8);
      return;
    }
  }
  KlLoc loc = loc_at(L, start);
  L->i = k;
  KlTokKind kind = keyword(L->s + start, k - start);
  KlToken *t = emit(L, kind, start, k - start, loc);
  t->str = kl_strndup(L->ctx, (const char *)L->s + start, k - start);
  t->slen = k - start;
  token_done(L);
}

static void lex_op(Lx *L) {
  size_t k = L->i;
  int best = -1;
  size_t bestlen = 0;
  for (int t = KL_TOK_LPAREN; t <= KL_TOK_DSTAREQ; t++) {
    size_t len = strlen(tok_texts[t]);
    if (len > bestlen && k + len <= L->n && memcmp(L->s + k, tok_texts[t], len) == 0) {
      best = t;
      bestlen = len;
    }
  }
  if (best < 0) invalid_char(L, k);
  KlLoc loc = loc_at(L, k);
  KlTokKind kind = (KlTokKind)best;
  if (kind == KL_TOK_LPAREN || kind == KL_TOK_LBRACKET || kind == KL_TOK_LBRACE) {
    if (L->depth >= MAX_PAREN) kl_fatal(L->ctx, KL_KILN001, loc, "too many nested parentheses");
    L->parenkind[L->depth] = kind;
    L->parenloc[L->depth] = loc;
    L->depth++;
  } else if (kind == KL_TOK_RPAREN || kind == KL_TOK_RBRACKET || kind == KL_TOK_RBRACE) {
    if (L->depth == 0) kl_fatal(L->ctx, KL_KILN001, loc, "unmatched '%s'", tok_texts[kind]);
    KlTokKind open = L->parenkind[L->depth - 1];
    KlTokKind want = open == KL_TOK_LPAREN ? KL_TOK_RPAREN : open == KL_TOK_LBRACKET ? KL_TOK_RBRACKET : KL_TOK_RBRACE;
    if (kind != want) {
      KlLoc ol = L->parenloc[L->depth - 1];
      if (ol.line != loc.line)
        kl_fatal(L->ctx, KL_KILN001, loc, "closing parenthesis '%s' does not match opening parenthesis '%s' on line %d",
                 tok_texts[kind], tok_texts[open], ol.line);
      kl_fatal(L->ctx, KL_KILN001, loc, "closing parenthesis '%s' does not match opening parenthesis '%s'",
               tok_texts[kind], tok_texts[open]);
    }
    L->depth--;
  }
  L->i = k + bestlen;
  emit(L, kind, k, bestlen, loc);
  token_done(L);
}

/* At the beginning of a logical line outside brackets: measure the
 * indentation and emit INDENT/DEDENT tokens. */
static void indentation(Lx *L) {
  int col = 0, altcol = 0;
  size_t k = L->i;
  for (;; k++) {
    int c = C(L, k);
    if (c == ' ') {
      col++;
      altcol++;
    } else if (c == '\t') {
      col = (col / TABSIZE + 1) * TABSIZE;
      altcol++;
    } else if (c == '\f') {
      col = altcol = 0;
    } else {
      break;
    }
  }
  L->i = k;
  int c = C(L, k);
  if (c < 0 || c == '#' || c == '\n' || c == '\r') return; /* blank line */
  KlLoc loc = loc_at(L, k);
  if (col == L->indstack[L->indent]) {
    if (altcol != L->altstack[L->indent])
      kl_fatal(L->ctx, KL_KILN003, loc, "inconsistent use of tabs and spaces in indentation");
  } else if (col > L->indstack[L->indent]) {
    if (L->indent + 1 >= MAX_INDENT) kl_fatal(L->ctx, KL_KILN003, loc, "too many levels of indentation");
    if (altcol <= L->altstack[L->indent])
      kl_fatal(L->ctx, KL_KILN003, loc, "inconsistent use of tabs and spaces in indentation");
    L->indent++;
    L->indstack[L->indent] = col;
    L->altstack[L->indent] = altcol;
    emit(L, KL_TOK_INDENT, k, 0, loc);
  } else {
    while (L->indent > 0 && col < L->indstack[L->indent]) {
      L->indent--;
      emit(L, KL_TOK_DEDENT, k, 0, loc);
    }
    if (col != L->indstack[L->indent])
      kl_fatal(L->ctx, KL_KILN003, loc, "unindent does not match any outer indentation level");
    if (altcol != L->altstack[L->indent])
      kl_fatal(L->ctx, KL_KILN003, loc, "inconsistent use of tabs and spaces in indentation");
  }
}

/* Tokens from L->i to L->n. */
static void lex_loop(Lx *L) {
  bool atbol = true;
  for (;;) {
    if (atbol) {
      atbol = false;
      if (L->depth == 0) indentation(L);
    }
    int c = C(L, L->i);
    while (c == ' ' || c == '\t' || c == '\f') c = C(L, ++L->i);
    if (c < 0) break;
    if (c == '#') {
      while (L->i < L->n && !is_nl(L->s[L->i])) L->i++;
      continue;
    }
    if (c == '\n' || c == '\r') {
      size_t nl = L->i;
      if (L->depth == 0 && L->line_has_tokens) {
        emit(L, KL_TOK_NEWLINE, nl, 0, L->last_end);
        L->line_has_tokens = false;
      }
      L->i = eat_newline(L, nl);
      atbol = true;
      continue;
    }
    if (c == '\\') {
      KlLoc loc = loc_at(L, L->i);
      int d = C(L, L->i + 1);
      if (d != '\n' && d != '\r') {
        if (d < 0) kl_fatal(L->ctx, KL_KILN001, loc, "unexpected EOF while parsing");
        kl_fatal(L->ctx, KL_KILN001, loc, "unexpected character after line continuation character");
      }
      L->i = eat_newline(L, L->i + 1);
      if (L->i >= L->n) kl_fatal(L->ctx, KL_KILN001, loc, "unexpected EOF while parsing");
      continue;
    }
    if (is_digit(c) || (c == '.' && is_digit(C(L, L->i + 1)))) {
      lex_number(L);
      continue;
    }
    if (c == '\'' || c == '"') {
      lex_string(L, L->i, L->i, 0);
      continue;
    }
    if (is_ascii_ident_start(c)) {
      lex_name(L);
      continue;
    }
    if (c >= 0x80) {
      int len;
      if (!uni_ident(decode_cp(L, L->i, &len))) invalid_char(L, L->i);
      lex_name(L);
      continue;
    }
    lex_op(L);
  }
}

KlToken *kl_lex(KlCtx *ctx, int *ntoks) {
  prepare_source(ctx);
  Lx lx;
  memset(&lx, 0, sizeof lx);
  Lx *L = &lx;
  L->ctx = ctx;
  L->s = (const unsigned char *)ctx->src;
  L->n = ctx->srclen;
  L->line = 1;
  L->cline = 0;
  lex_loop(L);
  if (L->depth > 0)
    kl_fatal(ctx, KL_KILN001, L->parenloc[L->depth - 1], "'%s' was never closed", tok_texts[L->parenkind[L->depth - 1]]);
  KlLoc eof = loc_at(L, L->n);
  if (L->line_has_tokens) emit(L, KL_TOK_NEWLINE, L->n, 0, L->last_end);
  while (L->indent > 0) {
    L->indent--;
    emit(L, KL_TOK_DEDENT, L->n, 0, eof);
  }
  emit(L, KL_TOK_EOF, L->n, 0, eof);
  *ntoks = L->ntoks;
  return L->toks;
}

KlToken *kl_lex_range(KlCtx *ctx, size_t from, size_t to, KlLoc at, int *ntoks) {
  Lx lx;
  memset(&lx, 0, sizeof lx);
  Lx *L = &lx;
  L->ctx = ctx;
  L->s = (const unsigned char *)ctx->src;
  L->n = to;
  L->i = L->lstart = L->cpos = from;
  L->line = L->cline = at.line;
  L->ccol = at.col;
  L->depth = 1; /* as inside the field's braces: no NEWLINE or INDENT tokens */
  L->parenkind[0] = KL_TOK_LBRACE;
  L->parenloc[0] = at;
  lex_loop(L);
  if (L->depth != 1) kl_fatal(ctx, KL_KILN001, at, "unbalanced brackets in an f-string field");
  emit(L, KL_TOK_EOF, to, 0, loc_at(L, to));
  *ntoks = L->ntoks;
  return L->toks;
}

/* ------------------------------------------------------------------ dump */

static void bytes_escaped(KlBuf *out, const char *s, size_t n) {
  for (size_t k = 0; k < n; k++) {
    unsigned char c = (unsigned char)s[k];
    if (c == '"' || c == '\\') {
      char e[2] = {'\\', (char)c};
      kl_buf_put(out, e, 2);
    } else if (c >= 0x20 && c < 0x7F) {
      kl_buf_put(out, (const char *)&c, 1);
    } else {
      kl_buf_printf(out, "\\x%02x", c);
    }
  }
}

void kl_dump_tokens(const KlToken *toks, int ntoks, KlBuf *out) {
  for (int k = 0; k < ntoks; k++) {
    const KlToken *t = &toks[k];
    kl_buf_printf(out, "%d:%d %s", t->loc.line, t->loc.col, tok_names[t->kind]);
    switch (t->kind) {
    case KL_TOK_NAME:
      kl_buf_printf(out, " %.*s", (int)t->slen, t->str);
      break;
    case KL_TOK_INT:
      if (t->big)
        kl_buf_printf(out, " big:%.*s", (int)t->len, t->start);
      else
        kl_buf_printf(out, " %lld", (long long)t->ival);
      break;
    case KL_TOK_FLOAT:
    case KL_TOK_IMAG:
      kl_buf_printf(out, " %.17g", t->fval);
      break;
    case KL_TOK_STRING:
    case KL_TOK_FSTRING:
      kl_buf_puts(out, " \"");
      kl_buf_json_string(out, t->str, t->slen);
      kl_buf_puts(out, "\"");
      break;
    case KL_TOK_BYTES:
      kl_buf_puts(out, " \"");
      bytes_escaped(out, t->str, t->slen);
      kl_buf_puts(out, "\"");
      break;
    default:
      break;
    }
    kl_buf_puts(out, "\n");
  }
}
