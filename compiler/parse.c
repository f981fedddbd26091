/* parse.c — recursive descent over the token array, producing the AST.
 *
 * Module level: imports, top-level defs and assignments are understood;
 * every other statement is skipped (it still runs: the generated module
 * executes the original source). Inside a function, a construct outside the
 * compiled subset (class, lambda, try, ...) abandons that function only: it
 * is marked unsupported with the construct and its line, its tokens are
 * skipped, and it stays ordinary Python. */
#include "kiln.h"

#include <string.h>

#include "nfkc_table.h"

typedef struct Parser {
  KlCtx *ctx;
  KlToken *toks;
  int ntoks, pos;
  KlModule *mod;
  KlFunc *fn;          /* function being parsed */
  jmp_buf *bail;       /* where an unsupported construct jumps */
  int depth;           /* nesting of the recursive descent (see enter) */
  KlToken *nfkc_name;  /* a module-scope name Python would normalize (see nfkc_check) */
  int loops;           /* enclosing loop bodies in the current function */
  int lambda_bodies;   /* enclosing lambda bodies (a := there binds in the lambda) */
  bool named_ok;       /* the next test() may be `NAME := test` (named_test) */
  bool guardable_bind; /* note_names: the binding being noted may leave an import guarded */
} Parser;

/* Nesting deeper than this (parser recursion, or AST depth of a function)
 * leaves the function as Python: every later pass recurses over the tree,
 * and the stack must stay bounded whatever the input. CPython's own tokenizer
 * stops at 200 nested parentheses and 100 indentation levels. */
#define MAX_NESTING 200

static KlNode *test(Parser *p);
static KlNode *expr(Parser *p);
static KlNodeList block(Parser *p);
enum { TL_STAR = 1, TL_NAMED = 2 }; /* testlist's items: may be starred, may be NAME := test */
static KlNode *testlist(Parser *p, int items);
static KlNode *named_test(Parser *p);

/* ---- token helpers ---- */

static KlToken *peek(Parser *p) { return &p->toks[p->pos]; }
static KlToken *peek2(Parser *p) { return &p->toks[p->pos + 1 < p->ntoks ? p->pos + 1 : p->pos]; }
static bool at(Parser *p, KlTokKind k) { return p->toks[p->pos].kind == k; }
static KlToken *next(Parser *p) {
  KlToken *t = &p->toks[p->pos];
  if (t->kind != KL_TOK_EOF) p->pos++;
  return t;
}
static bool accept(Parser *p, KlTokKind k) {
  if (!at(p, k)) return false;
  next(p);
  return true;
}

/* ---- identifiers Python normalizes ----
 * Python reads every identifier in NFKC form (PEP 3131): `ﬁ` and `fi` are one
 * name, `ｘ` is `x`. kiln keeps names as spelled (no Unicode tables beyond
 * this one), so a name that NFKC could change makes its function (a name in
 * a body) or every function (a module-scope name) stay Python. */

static bool nfkc_unstable_cp(unsigned cp) {
  int lo = 0, hi = (int)(sizeof nfkc_unstable / sizeof nfkc_unstable[0]) - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (cp < nfkc_unstable[mid][0]) hi = mid - 1;
    else if (cp > nfkc_unstable[mid][1]) lo = mid + 1;
    else return true;
  }
  return false;
}

/* s is valid UTF-8 (the lexer checked it). */
static bool needs_nfkc(const char *s) {
  const unsigned char *u = (const unsigned char *)s;
  while (*u) {
    if (*u < 0x80) {
      u++;
      continue;
    }
    unsigned cp;
    int n;
    if ((*u & 0xE0) == 0xC0) cp = *u & 0x1Fu, n = 1;
    else if ((*u & 0xF0) == 0xE0) cp = *u & 0x0Fu, n = 2;
    else cp = *u & 0x07u, n = 3;
    u++;
    for (int i = 0; i < n && (*u & 0xC0) == 0x80; i++, u++) cp = cp << 6 | (*u & 0x3Fu);
    if (nfkc_unstable_cp(cp)) return true;
  }
  return false;
}

/* The first NAME token in [from, to) that NFKC could change, or NULL. */
static KlToken *nfkc_check(Parser *p, int from, int to) {
  for (int i = from; i < to && i < p->ntoks; i++)
    if (p->toks[i].kind == KL_TOK_NAME && p->toks[i].str && needs_nfkc(p->toks[i].str)) return &p->toks[i];
  return NULL;
}

static void mark_python(Parser *p, KlFunc *f, KlToken *t) {
  if (f->unsupported) return;
  f->unsupported = true;
  f->why_code = KL_KILN010;
  f->why = kl_fmt(p->ctx, "identifier '%s' is not in Unicode NFKC form (Python normalizes it)", t->str);
  f->why_loc = t->loc;
}

/* Abandons the current function: the construct stays Python. Outside a
 * function (module level) the caller skips the statement instead. */
static _Noreturn void unsupported(Parser *p, KlLoc loc, KlCode code, const char *what) {
  if (p->fn && !p->fn->unsupported) {
    p->fn->unsupported = true;
    p->fn->why_code = code;
    p->fn->why = kl_strdup(p->ctx, what);
    p->fn->why_loc = loc;
  }
  longjmp(*p->bail, 1);
}

/* A token the subset cannot parse here. Python may still accept it (we
 * only parse a subset), so this never fails the build: the function stays
 * Python, and the driver has already checked real syntax with CPython. */
static _Noreturn void unexpected(Parser *p) {
  KlToken *t = peek(p);
  unsupported(p, t->loc, KL_KILN010, kl_fmt(p->ctx, "syntax '%s' in this position", kl_tok_text(t->kind)));
}

/* Bounds the recursion: called on entry to every rule that can recurse
 * (paired with leave). At module level nothing recurses except through a
 * function, so there it is a plain syntax error. */
static _Noreturn void too_deep(Parser *p, KlLoc loc) {
  if (!p->fn || !p->bail) kl_fatal(p->ctx, KL_KILN001, loc, "nesting deeper than %d levels", MAX_NESTING);
  unsupported(p, loc, KL_KILN010, kl_fmt(p->ctx, "nesting deeper than %d levels", MAX_NESTING));
}
static void enter(Parser *p) {
  if (++p->depth > MAX_NESTING) too_deep(p, peek(p)->loc);
}
static void leave(Parser *p) { p->depth--; }

/* The depth of the tree under n, counting stops at MAX_NESTING + 1: the
 * recursion itself is bounded. *deep is set to the first node too deep. */
static int tree_depth(KlNode *n, int d, KlNode **deep);
static int list_depth(KlNodeList l, int d, KlNode **deep) {
  int m = d;
  for (int i = 0; i < l.len && !*deep; i++) {
    int x = tree_depth(l.items[i], d, deep);
    if (x > m) m = x;
  }
  return m;
}
static int tree_depth(KlNode *n, int d, KlNode **deep) {
  if (!n || *deep) return d;
  d++;
  if (d > MAX_NESTING) {
    *deep = n;
    return d;
  }
  int m = d, x;
  KlNode *kids[3] = {n->a, n->b, n->c};
  for (int i = 0; i < 3; i++)
    if ((x = tree_depth(kids[i], d, deep)) > m) m = x;
  KlNodeList lists[4] = {n->list, n->kw, n->body, n->orelse};
  for (int i = 0; i < 4; i++)
    if ((x = list_depth(lists[i], d, deep)) > m) m = x;
  if (n->lambda && (x = tree_depth(n->lambda->body, d, deep)) > m) m = x;
  return m;
}
static void check_depth(Parser *p, KlNode *n, KlNodeList l) {
  KlNode *deep = NULL;
  tree_depth(n, 0, &deep);
  list_depth(l, 0, &deep);
  if (deep) too_deep(p, deep->loc);
}

static KlToken *expect(Parser *p, KlTokKind k) {
  if (!at(p, k)) unexpected(p);
  return next(p);
}

static KlNode *new_node(Parser *p, KlNodeKind kind, KlLoc loc) {
  KlNode *n = kl_alloc(p->ctx, sizeof *n);
  n->kind = kind;
  n->loc = loc;
  n->id = p->ctx->next_node_id++;
  return n;
}

typedef struct Vec {
  KlNode **items;
  int len, cap;
} Vec;

static void vec_push(Parser *p, Vec *v, KlNode *n) {
  if (v->len == v->cap) {
    int cap = v->cap ? v->cap * 2 : 4;
    KlNode **items = kl_alloc(p->ctx, sizeof(KlNode *) * (size_t)cap);
    if (v->len) memcpy(items, v->items, sizeof(KlNode *) * (size_t)v->len);
    v->items = items;
    v->cap = cap;
  }
  v->items[v->len++] = n;
}

static KlNodeList to_list(Vec *v) { return (KlNodeList){v->items, v->len}; }

/* ---- expressions ---- */

/* An f-string field's expression: its source range lexed and parsed as an
 * expression in brackets. A form kiln does not lex or parse leaves the
 * function as Python (the diagnostic a lexical error recorded is dropped:
 * CPython accepted the source). */
static KlNode *fstring_expr(Parser *p, const KlFPart *part) {
  KlCtx *ctx = p->ctx;
  jmp_buf lexfail, *outer_fatal = ctx->fatal;
  KlDiag **tail = ctx->diag_tail;
  const int nerrors = ctx->nerrors;
  KlToken *volatile toks = NULL;
  int ntoks = 0;
  if (setjmp(lexfail) == 0) {
    ctx->fatal = &lexfail;
    toks = kl_lex_range(ctx, part->expr_from, part->expr_to, part->expr_loc, &ntoks);
  }
  ctx->fatal = outer_fatal;
  if (!toks) {
    *tail = NULL;
    ctx->diag_tail = tail;
    ctx->nerrors = nerrors;
    unsupported(p, part->expr_loc, KL_KILN010, "f-string");
  }
  KlToken *const main_toks = p->toks;
  const int main_pos = p->pos, main_ntoks = p->ntoks;
  jmp_buf fail, *outer_bail = p->bail;
  KlNode *volatile e = NULL;
  if (setjmp(fail) == 0) {
    p->bail = &fail;
    p->toks = toks;
    p->ntoks = ntoks;
    p->pos = 0;
    KlToken *odd = nfkc_check(p, 0, ntoks);
    if (odd)
      unsupported(p, odd->loc, KL_KILN010,
                  kl_fmt(ctx, "identifier '%s' is not in Unicode NFKC form (Python normalizes it)", odd->str));
    e = testlist(p, 0);
    if (!at(p, KL_TOK_EOF)) unexpected(p);
  }
  p->toks = main_toks;
  p->pos = main_pos;
  p->ntoks = main_ntoks;
  p->bail = outer_bail;
  if (!e) longjmp(*p->bail, 1); /* unsupported() has marked the function */
  return e;
}

/* A STR node of the text in *lit, which is emptied. */
static KlNode *str_node(Parser *p, KlBuf *lit, KlLoc loc) {
  KlNode *s = new_node(p, KL_N_STR, loc);
  s->str = kl_strndup(p->ctx, lit->data ? lit->data : "", lit->len);
  s->slen = lit->len;
  lit->len = 0;
  return s;
}

/* An f-string's parts as a JOINEDSTR (literal text merged into STR nodes,
 * fields as FORMAT nodes), continuing the literal in *lit. */
static void fstring_nodes(Parser *p, const KlFParts *fp, Vec *parts, KlBuf *lit, KlLoc loc) {
  for (int i = 0; i < fp->len; i++) {
    const KlFPart *part = &fp->items[i];
    if (part->lit) {
      kl_buf_put(lit, part->lit, part->litlen);
      continue;
    }
    if (lit->len) vec_push(p, parts, str_node(p, lit, loc));
    KlNode *f = new_node(p, KL_N_FORMAT, part->expr_loc);
    f->a = fstring_expr(p, part);
    f->op = part->conv;
    if (part->spec) {
      Vec spec = {0};
      KlBuf *speclit = kl_tracked_buf(p->ctx);
      fstring_nodes(p, part->spec, &spec, speclit, part->expr_loc);
      if (speclit->len) vec_push(p, &spec, str_node(p, speclit, part->expr_loc));
      kl_buf_free(speclit);
      f->b = new_node(p, KL_N_JOINEDSTR, part->expr_loc);
      f->b->list = to_list(&spec);
    }
    vec_push(p, parts, f);
  }
}

/* Concatenates adjacent string (or bytes) literals; with an f-string among
 * them the result is a JOINEDSTR of literal and formatted parts. (The text
 * buffer is the context's: a field may abandon the function mid-way.) */
static KlNode *strings(Parser *p) {
  KlToken *first = peek(p);
  bool is_bytes = first->kind == KL_TOK_BYTES, formatted = false;
  KlBuf *b = kl_tracked_buf(p->ctx);
  Vec parts = {0};
  while (at(p, KL_TOK_STRING) || at(p, KL_TOK_BYTES) || at(p, KL_TOK_FSTRING)) {
    KlToken *t = peek(p);
    if ((t->kind == KL_TOK_BYTES) != is_bytes) unsupported(p, t->loc, KL_KILN010, "mixing bytes and str literals");
    if (t->kind == KL_TOK_FSTRING) {
      if (!t->fparts) unsupported(p, t->loc, KL_KILN010, "f-string (a form kiln does not parse)");
      formatted = true;
      next(p);
      fstring_nodes(p, t->fparts, &parts, b, t->loc);
      continue;
    }
    kl_buf_put(b, t->str ? t->str : "", t->slen);
    next(p);
  }
  KlNode *n;
  if (formatted) {
    if (b->len) vec_push(p, &parts, str_node(p, b, first->loc));
    n = new_node(p, KL_N_JOINEDSTR, first->loc);
    n->list = to_list(&parts);
  } else {
    n = new_node(p, is_bytes ? KL_N_BYTES : KL_N_STR, first->loc);
    n->str = kl_strndup(p->ctx, b->data ? b->data : "", b->len);
    n->slen = b->len;
  }
  kl_buf_free(b);
  return n;
}

/* A string annotation (PEP 484 forward reference) that spells a dotted name,
 * `"kt.TensorF32Cpu2D"`, means that name; kiln only reads annotations, so
 * nothing evaluates the string. Any other string stays a string (untyped). */
static KlNode *annotation(Parser *p) {
  KlNode *n = test(p);
  if (n->kind != KL_N_STR || n->slen == 0 || strlen(n->str) != n->slen) return n;
  const char *s = n->str;
  for (size_t i = 0, seg = 0; i <= n->slen; i++, seg++) {
    const char c = s[i];
    if (c == '.' || c == '\0') {
      if (seg == 0) return n;
      seg = (size_t)-1;
    } else if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (seg > 0 && c >= '0' && c <= '9'))) {
      return n; /* only ASCII identifiers: others would need NFKC */
    }
  }
  KlNode *r = NULL;
  for (const char *q = s; *q;) {
    size_t len = strcspn(q, ".");
    KlNode *part = new_node(p, r ? KL_N_ATTR : KL_N_NAME, n->loc);
    part->name = kl_strndup(p->ctx, q, len);
    for (KlTokKind k = KL_TOK_KW_FALSE; k <= KL_TOK_KW_YIELD; k++)
      if (!strcmp(part->name, kl_tok_text(k))) return n; /* "None", "lambda": not a name */
    part->a = r;
    r = part;
    q += len + (q[len] == '.');
  }
  return r;
}

static KlNode *bool_op(Parser *p, bool is_or);
static KlNode *for_targets(Parser *p);

const char *const kl_comp_text[] = {
#define X(name, text) text,
    KL_COMP_KINDS(X)
#undef X
};

static bool at_comp_for(Parser *p) { return at(p, KL_TOK_KW_FOR) || at(p, KL_TOK_KW_ASYNC); }

/* A comprehension target kiln binds: names, in tuples and lists, one of
 * them starred (`for a, *rest in rows`). */
static void check_comp_target(Parser *p, KlNode *t) {
  if (t->kind == KL_N_TUPLE || t->kind == KL_N_LIST) {
    for (int i = 0; i < t->list.len; i++) check_comp_target(p, t->list.items[i]);
  } else if (t->kind == KL_N_STARRED) {
    check_comp_target(p, t->a);
  } else if (t->kind != KL_N_NAME) {
    unsupported(p, t->loc, KL_KILN010, "comprehension target that is not a name");
  }
}

/* Whether a comprehension target binds name. */
static bool target_binds(const KlNode *t, const char *name) {
  if (t->kind == KL_N_NAME) return !strcmp(t->name, name);
  if (t->kind == KL_N_STARRED) return target_binds(t->a, name);
  for (int i = 0; i < t->list.len; i++)
    if (target_binds(t->list.items[i], name)) return true;
  return false;
}

/* A := in n (not in a lambda: its own scope) binding an iteration variable
 * of comprehension comp, which CPython's symtable refuses. */
static const KlNode *rebinding_walrus(const KlNode *comp, const KlNode *n) {
  if (!n) return NULL;
  if (n->kind == KL_N_NAMEDEXPR)
    for (int i = 0; i < comp->list.len; i++)
      if (target_binds(comp->list.items[i]->a, n->a->name)) return n;
  const KlNode *r;
  if ((r = rebinding_walrus(comp, n->a)) || (r = rebinding_walrus(comp, n->b)) || (r = rebinding_walrus(comp, n->c)))
    return r;
  for (int i = 0; i < n->list.len; i++)
    if ((r = rebinding_walrus(comp, n->list.items[i]))) return r;
  for (int i = 0; i < n->kw.len; i++)
    if ((r = rebinding_walrus(comp, n->kw.items[i]))) return r;
  return NULL;
}

/* comprehension = elt comp_for+ ; comp_for = "for" targets "in" or_test ("if" or_test)*
 * (after the element, at "for"). kind is what it makes (KL_COMP_*). */
static KlNode *comprehension(Parser *p, KlCompKind kind, KlNode *elt, KlNode *value, KlLoc loc) {
  KlNode *n = new_node(p, KL_N_COMP, loc);
  n->op = (int)kind;
  n->a = elt;
  n->b = value;
  Vec clauses = {0};
  while (at_comp_for(p)) {
    if (at(p, KL_TOK_KW_ASYNC)) unsupported(p, peek(p)->loc, KL_KILN010, "asynchronous comprehension");
    KlNode *c = new_node(p, KL_N_COMPFOR, next(p)->loc);
    c->a = for_targets(p);
    check_comp_target(p, c->a);
    expect(p, KL_TOK_KW_IN);
    int iter0 = p->pos;
    c->b = bool_op(p, true);
    for (int i = iter0; i < p->pos; i++) /* even in a lambda there: CPython's SyntaxError */
      if (p->toks[i].kind == KL_TOK_WALRUS)
        unsupported(p, p->toks[i].loc, KL_KILN010, "assignment expression (:=) in a comprehension iterable (a SyntaxError)");
    Vec conds = {0};
    while (accept(p, KL_TOK_KW_IF)) vec_push(p, &conds, bool_op(p, true));
    c->list = to_list(&conds);
    vec_push(p, &clauses, c);
  }
  n->list = to_list(&clauses);
  const KlNode *w = rebinding_walrus(n, elt);
  if (!w) w = rebinding_walrus(n, value);
  for (int i = 0; !w && i < n->list.len; i++) {
    const KlNode *c = n->list.items[i];
    for (int j = 0; !w && j < c->list.len; j++) w = rebinding_walrus(n, c->list.items[j]);
  }
  if (w)
    unsupported(p, w->loc, KL_KILN010,
                kl_fmt(p->ctx, "assignment expression (:=) rebinding the comprehension variable '%s' (a SyntaxError)",
                       w->a->name));
  return n;
}

/* A comprehension in its own brackets: `close` ends it. */
static KlNode *closed_comprehension(Parser *p, KlCompKind kind, KlNode *elt, KlNode *value, KlLoc loc,
                                    KlTokKind close) {
  KlNode *n = comprehension(p, kind, elt, value, loc);
  expect(p, close);
  return n;
}

/* The line of the last token consumed, where it ends (a string may span
 * lines): the last line of the code CPython compiles for a lambda, a
 * nested def or a generator expression (KlLambda.end_line, the report's). */
static int last_token_end_line(const Parser *p) {
  const KlToken *t = &p->toks[p->pos > 0 ? p->pos - 1 : 0];
  int line = t->loc.line;
  for (size_t i = 0; i < t->len; i++) line += t->start[i] == '\n';
  return line;
}

/* The function CPython compiles for the token t: its line and column
 * (bytes from the line's start, CPython's col_offset). */
static KlLambda *function_at(Parser *p, const KlToken *t) {
  KlLambda *l = kl_alloc(p->ctx, sizeof *l);
  l->line = t->loc.line;
  const char *ls = t->start;
  while (ls > p->ctx->src && ls[-1] != '\n' && ls[-1] != '\r') ls--;
  l->col = (int)(t->start - ls);
  return l;
}

/* A generator expression is a function of CPython's, made where its `(`
 * is (a call's, when it is the call's one argument): resolve.c makes one
 * that is not consumed from that code object (n->lambda; see KlLambda). */
static KlNode *generator_at(Parser *p, KlNode *n, const KlToken *paren) {
  n->lambda = function_at(p, paren);
  n->lambda->end_line = last_token_end_line(p);
  return n;
}

/* "*" expr: an item unpacked into a display or a call's arguments, or the
 * target in a target list that takes the rest (a STARRED node). Where
 * CPython allows it is CPython's check (the driver compiled the source). */
static KlNode *starred(Parser *p) {
  KlToken *t = next(p);
  KlNode *n = new_node(p, KL_N_STARRED, t->loc);
  n->a = expr(p);
  return n;
}

static KlNode *star_or_test(Parser *p) {
  if (at(p, KL_TOK_STAR)) return starred(p);
  return test(p);
}

/* Whether the expression parsed from token i on was an unparenthesised
 * `NAME := ...` (a parenthesised one starts with its "("). */
static bool bare_walrus_at(const Parser *p, int i) {
  return i + 1 < p->ntoks && p->toks[i].kind == KL_TOK_NAME && p->toks[i + 1].kind == KL_TOK_WALRUS;
}

static KlNode *star_or_named(Parser *p) {
  if (at(p, KL_TOK_STAR)) return starred(p);
  return named_test(p);
}

/* "**" expr in a dict display: a STARRED node with op 2 as the key, and a
 * None placeholder as its value, so DICT items stay pairs. */
static void dict_unpacking(Parser *p, Vec *v) {
  KlToken *t = next(p);
  KlNode *n = new_node(p, KL_N_STARRED, t->loc);
  n->op = 2;
  n->a = expr(p);
  vec_push(p, v, n);
  vec_push(p, v, new_node(p, KL_N_NONE, t->loc));
}

/* A dict display's items after its first: `, k: v` or `, **m`. */
static void dict_rest(Parser *p, Vec *v) {
  while (accept(p, KL_TOK_COMMA) && !at(p, KL_TOK_RBRACE)) {
    if (at(p, KL_TOK_DSTAR)) {
      dict_unpacking(p, v);
      continue;
    }
    vec_push(p, v, test(p));
    expect(p, KL_TOK_COLON);
    vec_push(p, v, test(p));
  }
}

/* atom = "(" [testlist] ")" | "[" [items] "]" | "{" [dict/set items] "}"
 *      | NAME | number | string+ | "..." | None | True | False */
static KlNode *atom(Parser *p) {
  KlToken *t = peek(p);
  KlNode *n;
  switch (t->kind) {
  case KL_TOK_NAME:
    next(p);
    n = new_node(p, KL_N_NAME, t->loc);
    n->name = t->str;
    return n;
  case KL_TOK_INT:
    next(p);
    n = new_node(p, KL_N_INT, t->loc);
    n->ival = t->ival;
    n->big = t->big;
    if (t->big) {
      /* keep the literal text (without underscores) for PyLong_FromString */
      char *s = kl_alloc(p->ctx, t->len + 1);
      size_t j = 0;
      for (size_t i = 0; i < t->len; i++)
        if (t->start[i] != '_') s[j++] = t->start[i];
      n->str = s;
      n->slen = j;
    }
    return n;
  case KL_TOK_FLOAT:
  case KL_TOK_IMAG:
    next(p);
    n = new_node(p, t->kind == KL_TOK_FLOAT ? KL_N_FLOAT : KL_N_IMAG, t->loc);
    n->fval = t->fval;
    return n;
  case KL_TOK_STRING:
  case KL_TOK_BYTES:
  case KL_TOK_FSTRING:
    return strings(p);
  case KL_TOK_KW_TRUE: next(p); return new_node(p, KL_N_TRUE, t->loc);
  case KL_TOK_KW_FALSE: next(p); return new_node(p, KL_N_FALSE, t->loc);
  case KL_TOK_KW_NONE: next(p); return new_node(p, KL_N_NONE, t->loc);
  case KL_TOK_ELLIPSIS: next(p); return new_node(p, KL_N_ELLIPSIS, t->loc);
  case KL_TOK_LPAREN: {
    next(p);
    if (accept(p, KL_TOK_RPAREN)) return new_node(p, KL_N_TUPLE, t->loc);
    if (at(p, KL_TOK_KW_YIELD)) unsupported(p, peek(p)->loc, KL_KILN010, "yield expression");
    KlNode *first = star_or_named(p);
    if (at_comp_for(p)) return generator_at(p, closed_comprehension(p, KL_COMP_GENERATOR, first, NULL, t->loc, KL_TOK_RPAREN), t);
    if (accept(p, KL_TOK_RPAREN)) return first; /* parenthesised expression */
    Vec v = {0};
    vec_push(p, &v, first);
    while (accept(p, KL_TOK_COMMA)) {
      if (at(p, KL_TOK_RPAREN)) break;
      vec_push(p, &v, star_or_named(p));
    }
    expect(p, KL_TOK_RPAREN);
    n = new_node(p, KL_N_TUPLE, t->loc);
    n->list = to_list(&v);
    return n;
  }
  case KL_TOK_LBRACKET: {
    next(p);
    Vec v = {0};
    if (!at(p, KL_TOK_RBRACKET)) {
      KlNode *first = star_or_named(p);
      if (at_comp_for(p)) return closed_comprehension(p, KL_COMP_LIST, first, NULL, t->loc, KL_TOK_RBRACKET);
      vec_push(p, &v, first);
      while (accept(p, KL_TOK_COMMA)) {
        if (at(p, KL_TOK_RBRACKET)) break;
        vec_push(p, &v, star_or_named(p));
      }
    }
    expect(p, KL_TOK_RBRACKET);
    n = new_node(p, KL_N_LIST, t->loc);
    n->list = to_list(&v);
    return n;
  }
  case KL_TOK_LBRACE: {
    next(p);
    Vec v = {0};
    KlNodeKind kind = KL_N_DICT;
    if (at(p, KL_TOK_DSTAR)) {
      dict_unpacking(p, &v);
      dict_rest(p, &v);
    } else if (!at(p, KL_TOK_RBRACE)) {
      int k0 = p->pos;
      KlNode *k = star_or_named(p); /* a set's item may be NAME := test, a dict's key not */
      if (at(p, KL_TOK_COLON) && bare_walrus_at(p, k0)) unexpected(p);
      if (accept(p, KL_TOK_COLON)) {
        KlNode *value = test(p);
        if (at_comp_for(p)) return closed_comprehension(p, KL_COMP_DICT, k, value, t->loc, KL_TOK_RBRACE);
        vec_push(p, &v, k);
        vec_push(p, &v, value);
        dict_rest(p, &v);
      } else {
        kind = KL_N_SET;
        if (at_comp_for(p)) return closed_comprehension(p, KL_COMP_SET, k, NULL, t->loc, KL_TOK_RBRACE);
        vec_push(p, &v, k);
        while (accept(p, KL_TOK_COMMA)) {
          if (at(p, KL_TOK_RBRACE)) break;
          vec_push(p, &v, star_or_named(p));
        }
      }
    }
    expect(p, KL_TOK_RBRACE);
    n = new_node(p, kind, t->loc);
    n->list = to_list(&v);
    return n;
  }
  case KL_TOK_KW_YIELD: unsupported(p, t->loc, KL_KILN010, "yield");
  case KL_TOK_KW_AWAIT: unsupported(p, t->loc, KL_KILN010, "await");
  default: unexpected(p);
  }
}

/* arguments = ("*" test | test | NAME "=" test | "**" test)*: positional
 * ones (STARRED for *) in list, keywords in kw (a KEYWORD without a name for
 * **), which is also the order CPython evaluates them in. */
static void call_args(Parser *p, KlNode *call) {
  const KlToken *paren = &p->toks[p->pos - 1]; /* the call's `(` */
  Vec args = {0}, kws = {0};
  while (!at(p, KL_TOK_RPAREN)) {
    KlToken *t = peek(p);
    if (t->kind == KL_TOK_STAR) {
      KlNode *s = new_node(p, KL_N_STARRED, next(p)->loc);
      s->a = test(p);
      vec_push(p, &args, s);
    } else if (t->kind == KL_TOK_DSTAR) {
      KlNode *kw = new_node(p, KL_N_KEYWORD, next(p)->loc);
      kw->a = test(p);
      vec_push(p, &kws, kw);
    } else if (t->kind == KL_TOK_NAME && peek2(p)->kind == KL_TOK_ASSIGN) {
      next(p);
      next(p);
      KlNode *kw = new_node(p, KL_N_KEYWORD, t->loc);
      kw->name = t->str;
      kw->a = test(p);
      for (int i = 0; i < kws.len; i++)
        if (kws.items[i]->name && !strcmp(kws.items[i]->name, kw->name)) unexpected(p); /* repeated: SyntaxError */
      vec_push(p, &kws, kw);
    } else {
      if (kws.len) unexpected(p); /* positional after keyword: SyntaxError */
      KlNode *arg = named_test(p);
      if (at_comp_for(p)) { /* f(x for x in y): the one argument, unparenthesised */
        if (args.len || kws.len) unexpected(p);
        arg = generator_at(p, comprehension(p, KL_COMP_GENERATOR, arg, NULL, t->loc), paren);
        if (!at(p, KL_TOK_RPAREN)) unexpected(p);
      }
      vec_push(p, &args, arg);
    }
    if (!accept(p, KL_TOK_COMMA)) break;
  }
  expect(p, KL_TOK_RPAREN);
  call->list = to_list(&args);
  call->kw = to_list(&kws);
}

/* subscript = slice | test ; slice = [test] ":" [test] [":" [test]] */
static KlNode *subscript_item(Parser *p) {
  KlLoc loc = peek(p)->loc;
  KlNode *lo = NULL;
  if (!at(p, KL_TOK_COLON)) {
    if (at(p, KL_TOK_STAR)) return starred(p); /* x[*a, b] (3.11): the index is that tuple */
    int lo0 = p->pos;
    lo = named_test(p); /* x[y := 1] takes it, a slice's bounds not */
    if (!at(p, KL_TOK_COLON)) return lo;
    if (bare_walrus_at(p, lo0)) unexpected(p);
  }
  KlNode *s = new_node(p, KL_N_SLICE, loc);
  s->a = lo;
  expect(p, KL_TOK_COLON);
  if (!at(p, KL_TOK_COLON) && !at(p, KL_TOK_RBRACKET) && !at(p, KL_TOK_COMMA)) s->b = test(p);
  if (accept(p, KL_TOK_COLON))
    if (!at(p, KL_TOK_RBRACKET) && !at(p, KL_TOK_COMMA)) s->c = test(p);
  return s;
}

/* primary = atom ("(" args ")" | "[" subscripts "]" | "." NAME)* */
static KlNode *primary(Parser *p) {
  KlNode *n = atom(p);
  for (;;) {
    KlToken *t = peek(p);
    if (accept(p, KL_TOK_LPAREN)) {
      /* a call is located at the name called: `linear` in F.linear(...), `mean` in h.mean(...) */
      KlNode *c = new_node(p, KL_N_CALL, n->kind == KL_N_NAME || n->kind == KL_N_ATTR ? n->loc : t->loc);
      c->a = n;
      call_args(p, c);
      n = c;
    } else if (accept(p, KL_TOK_LBRACKET)) {
      KlNode *s = new_node(p, KL_N_SUBSCRIPT, t->loc);
      s->a = n;
      KlNode *first = subscript_item(p);
      if (at(p, KL_TOK_COMMA) || first->kind == KL_N_STARRED) {
        Vec v = {0};
        vec_push(p, &v, first);
        while (accept(p, KL_TOK_COMMA)) {
          if (at(p, KL_TOK_RBRACKET)) break;
          vec_push(p, &v, subscript_item(p));
        }
        first = new_node(p, KL_N_TUPLE, first->loc);
        first->list = to_list(&v);
      }
      s->b = first;
      expect(p, KL_TOK_RBRACKET);
      n = s;
    } else if (accept(p, KL_TOK_DOT)) {
      KlToken *name = expect(p, KL_TOK_NAME);
      KlNode *a = new_node(p, KL_N_ATTR, name->loc);
      a->a = n;
      a->name = name->str;
      n = a;
    } else {
      return n;
    }
  }
}

static KlNode *factor(Parser *p);

/* power = primary ["**" factor] */
static KlNode *power(Parser *p) {
  KlNode *base = primary(p);
  KlToken *t = peek(p);
  if (!accept(p, KL_TOK_DSTAR)) return base;
  KlNode *n = new_node(p, KL_N_BINOP, t->loc);
  n->op = KL_OP_POW;
  n->a = base;
  n->b = factor(p);
  return n;
}

/* factor = ("+" | "-" | "~") factor | power */
static KlNode *factor(Parser *p) {
  KlToken *t = peek(p);
  int op;
  switch (t->kind) {
  case KL_TOK_MINUS: op = KL_UOP_NEG; break;
  case KL_TOK_PLUS: op = KL_UOP_POS; break;
  case KL_TOK_TILDE: op = KL_UOP_INVERT; break;
  default: {
    enter(p); /* every nested expression passes here: parentheses, `**` */
    KlNode *n = power(p);
    leave(p);
    return n;
  }
  }
  next(p);
  KlNode *n = new_node(p, KL_N_UNARY, t->loc);
  n->op = op;
  enter(p);
  n->a = factor(p);
  leave(p);
  return n;
}

/* Binary operator levels, loosest first; each level is left-associative. */
static const struct {
  KlTokKind tok;
  KlBinOp op;
} binop_levels[][5] = {
    {{KL_TOK_PIPE, KL_OP_BITOR}},
    {{KL_TOK_CARET, KL_OP_BITXOR}},
    {{KL_TOK_AMP, KL_OP_BITAND}},
    {{KL_TOK_LSHIFT, KL_OP_LSHIFT}, {KL_TOK_RSHIFT, KL_OP_RSHIFT}},
    {{KL_TOK_PLUS, KL_OP_ADD}, {KL_TOK_MINUS, KL_OP_SUB}},
    {{KL_TOK_STAR, KL_OP_MUL}, {KL_TOK_AT, KL_OP_MATMUL}, {KL_TOK_SLASH, KL_OP_DIV},
     {KL_TOK_PERCENT, KL_OP_MOD}, {KL_TOK_DSLASH, KL_OP_FLOORDIV}},
};
enum { NUM_LEVELS = sizeof binop_levels / sizeof binop_levels[0] };

/* expr = xor ("|" xor)* ; xor = and ("^" and)* ; ... ; term = factor (("*"|"@"|"/"|"%"|"//") factor)* */
static KlNode *binary(Parser *p, int level) {
  if (level == NUM_LEVELS) return factor(p);
  KlNode *n = binary(p, level + 1);
  for (;;) {
    KlToken *t = peek(p);
    int found = -1;
    for (int i = 0; i < 5 && binop_levels[level][i].tok; i++)
      if (binop_levels[level][i].tok == t->kind) found = i;
    if (found < 0) return n;
    next(p);
    KlNode *b = new_node(p, KL_N_BINOP, t->loc);
    b->op = (int)binop_levels[level][found].op;
    b->a = n;
    b->b = binary(p, level + 1);
    n = b;
  }
}

static KlNode *expr(Parser *p) { return binary(p, 0); }

/* comp_op = "<"|">"|"=="|">="|"<="|"!="|"in"|"not" "in"|"is"|"is" "not" */
static int comp_op(Parser *p) {
  switch (peek(p)->kind) {
  case KL_TOK_LT: next(p); return KL_CMP_LT;
  case KL_TOK_LE: next(p); return KL_CMP_LE;
  case KL_TOK_GT: next(p); return KL_CMP_GT;
  case KL_TOK_GE: next(p); return KL_CMP_GE;
  case KL_TOK_EQ: next(p); return KL_CMP_EQ;
  case KL_TOK_NE: next(p); return KL_CMP_NE;
  case KL_TOK_KW_IN: next(p); return KL_CMP_IN;
  case KL_TOK_KW_IS:
    next(p);
    return accept(p, KL_TOK_KW_NOT) ? KL_CMP_ISNOT : KL_CMP_IS;
  case KL_TOK_KW_NOT:
    if (peek2(p)->kind != KL_TOK_KW_IN) return -1;
    next(p);
    next(p);
    return KL_CMP_NOTIN;
  default: return -1;
  }
}

/* comparison = expr (comp_op expr)* */
static KlNode *comparison(Parser *p) {
  KlNode *first = expr(p);
  KlLoc loc = peek(p)->loc;
  int op = comp_op(p);
  if (op < 0) return first;
  Vec v = {0};
  int ops[64], nops = 0;
  vec_push(p, &v, first);
  while (op >= 0) {
    if (nops == 64) unsupported(p, loc, KL_KILN010, "comparison chain longer than 64");
    ops[nops++] = op;
    vec_push(p, &v, expr(p));
    op = comp_op(p);
  }
  KlNode *n = new_node(p, KL_N_COMPARE, loc);
  n->list = to_list(&v);
  n->cmpops = kl_alloc(p->ctx, sizeof(int) * (size_t)nops);
  memcpy(n->cmpops, ops, sizeof(int) * (size_t)nops);
  return n;
}

/* not_test = "not" not_test | comparison */
static KlNode *not_test(Parser *p) {
  KlToken *t = peek(p);
  if (!accept(p, KL_TOK_KW_NOT)) return comparison(p);
  KlNode *n = new_node(p, KL_N_NOT, t->loc);
  enter(p);
  n->a = not_test(p);
  leave(p);
  return n;
}

/* and_test = not_test ("and" not_test)* ; or_test = and_test ("or" and_test)* */
static KlNode *bool_op(Parser *p, bool is_or) {
  KlNode *first = is_or ? bool_op(p, false) : not_test(p);
  KlTokKind kw = is_or ? KL_TOK_KW_OR : KL_TOK_KW_AND;
  if (!at(p, kw)) return first;
  KlNode *n = new_node(p, KL_N_BOOLOP, peek(p)->loc);
  n->op = is_or;
  Vec v = {0};
  vec_push(p, &v, first);
  while (accept(p, kw)) vec_push(p, &v, is_or ? bool_op(p, false) : not_test(p));
  n->list = to_list(&v);
  return n;
}

/* Appends `name: value` to a def's annotations (a DICT display's items). */
static void ann_push(Parser *p, Vec *ann, const char *name, KlNode *value) {
  if (!value) return;
  KlNode *key = new_node(p, KL_N_STR, value->loc);
  key->str = (char *)name;
  key->slen = strlen(name);
  vec_push(p, ann, key);
  vec_push(p, ann, value);
}

/* The parameters of a lambda (up to `:`) or a nested def (up to `)`):
 * param = NAME [":" test] ["=" test] | "*" [NAME [":" test]] | "**" NAME [":" test] | "/" ;
 * the defaults go to n->list, keyword-only ones (KEYWORD nodes) to n->kw,
 * the names to n->lambda in co_varnames order, a def's annotations to
 * *ann in the order CPython evaluates them (parameters after the `/`,
 * those before it, *args, keyword-only ones, **kwargs). */
static void function_params(Parser *p, KlNode *n, KlTokKind end, Vec *ann) {
  KlLambda *l = n->lambda;
  enum { MAXP = 256 };
  /* in the arena, not on the stack: lambdas nest as deep as the parser allows */
  const char **pos = kl_alloc(p->ctx, sizeof(char *) * 2 * MAXP), **kwonly = pos + MAXP, *star = NULL, *dstar = NULL;
  KlNode **pos_ann = kl_alloc(p->ctx, sizeof(KlNode *) * 2 * MAXP), **kw_ann = pos_ann + MAXP;
  KlNode *star_ann = NULL, *dstar_ann = NULL;
  int npos = 0, nkw = 0, nposonly = 0;
  Vec defaults = {0}, kwdefaults = {0};
  while (!at(p, end)) {
    KlToken *s = peek(p);
    if (npos + nkw == MAXP) unsupported(p, s->loc, KL_KILN011, "more than 256 parameters");
    KlNode **annotation = NULL;
    if (accept(p, KL_TOK_SLASH)) {
      nposonly = npos; /* the same varnames and defaults */
    } else if (accept(p, KL_TOK_DSTAR)) {
      dstar = expect(p, KL_TOK_NAME)->str;
      annotation = &dstar_ann;
    } else if (accept(p, KL_TOK_STAR)) {
      if (at(p, KL_TOK_NAME)) star = next(p)->str, annotation = &star_ann;
      star = star ? star : "";
    } else {
      KlToken *name = expect(p, KL_TOK_NAME);
      annotation = star ? &kw_ann[nkw] : &pos_ann[npos];
      *annotation = NULL;
      if (end == KL_TOK_RPAREN && accept(p, KL_TOK_COLON)) *annotation = test(p);
      KlNode *d = accept(p, KL_TOK_ASSIGN) ? test(p) : NULL;
      if (star) {
        kwonly[nkw++] = name->str;
        if (d) {
          KlNode *k = new_node(p, KL_N_KEYWORD, name->loc);
          k->name = name->str;
          k->a = d;
          vec_push(p, &kwdefaults, k);
        }
      } else {
        pos[npos++] = name->str;
        if (d) vec_push(p, &defaults, d);
      }
      annotation = NULL;
    }
    if (annotation && end == KL_TOK_RPAREN && accept(p, KL_TOK_COLON)) *annotation = test(p);
    if (!accept(p, KL_TOK_COMMA)) break;
  }
  expect(p, end);
  l->names = kl_alloc(p->ctx, sizeof(char *) * (size_t)(npos + nkw + 2));
  l->npos = npos;
  l->nkwonly = nkw;
  for (int i = 0; i < npos; i++) l->names[l->nnames++] = pos[i];
  for (int i = 0; i < nkw; i++) l->names[l->nnames++] = kwonly[i];
  if (star && *star) l->names[l->nnames++] = star;
  if (dstar) l->names[l->nnames++] = dstar;
  n->list = to_list(&defaults);
  n->kw = to_list(&kwdefaults);
  if (!ann) return;
  for (int i = nposonly; i < npos; i++) ann_push(p, ann, pos[i], pos_ann[i]);
  for (int i = 0; i < nposonly; i++) ann_push(p, ann, pos[i], pos_ann[i]);
  if (star && *star) ann_push(p, ann, star, star_ann);
  for (int i = 0; i < nkw; i++) ann_push(p, ann, kwonly[i], kw_ann[i]);
  if (dstar) ann_push(p, ann, dstar, dstar_ann);
}

/* A LAMBDA node for the `lambda` or `def` token t. */
static KlNode *function_node(Parser *p, KlToken *t) {
  KlNode *n = new_node(p, KL_N_LAMBDA, t->loc);
  n->lambda = function_at(p, t);
  return n;
}

/* lambda = "lambda" [params] ":" test */
static KlNode *lambda_expr(Parser *p) {
  enter(p);
  KlNode *n = function_node(p, next(p));
  function_params(p, n, KL_TOK_COLON, NULL);
  p->lambda_bodies++;
  n->lambda->body = test(p);
  n->lambda->end_line = last_token_end_line(p);
  p->lambda_bodies--;
  leave(p);
  return n;
}

/* Adds each identifier in an f-string token's text to *names (a superset
 * of the names its fields read). */
static void fstring_names(Parser *p, const KlToken *t, Vec *names) {
  const char *s = t->start, *e = t->start + t->len;
  while (s < e) {
    if (*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (unsigned char)*s >= 0x80) {
      const char *b = s;
      while (s < e && (*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
                       (unsigned char)*s >= 0x80))
        s++;
      KlNode *k = new_node(p, KL_N_NAME, t->loc);
      k->name = kl_strndup(p->ctx, b, (size_t)(s - b));
      vec_push(p, names, k);
    } else {
      s++;
    }
  }
}

/* A nested `[@decorator ...] def name(params) [-> annotation]: block`:
 * `name = <function>`, the function made like a lambda's (a LAMBDA node
 * named `name`) from the code object CPython compiled: its decorators in
 * n->b (a TUPLE, evaluated first, applied last to first), its annotations
 * in n->c (a DICT, evaluated after the defaults). The block is CPython's:
 * kiln skips it, keeping every name it mentions (reads) so that the
 * variables of the function it may read become cells. With `from
 * __future__ import annotations` the annotations are strings of their
 * source as CPython unparses it: an annotated def stays Python. */
static void call_args(Parser *p, KlNode *call);
static void bind_global_statements(Parser *p, int from, int to);

/* In a class body CPython mangles `__x` to `_Class__x` (a free variable of
 * that name, too). The token scan does not tell a body's scopes apart: each
 * `__x` read gets the mangled form for every class in `classes` (the class
 * and those its body defines), a superset, as the reads are. */
static void add_mangled_names(Parser *p, const Vec *classes, Vec *reads) {
  const int n = reads->len;
  for (int i = 0; i < n; i++) {
    const char *s = ((KlNode *)reads->items[i])->name;
    size_t len = strlen(s);
    if (len < 3 || s[0] != '_' || s[1] != '_' || (s[len - 1] == '_' && s[len - 2] == '_')) continue;
    for (int c = 0; c < classes->len; c++) {
      const char *k = ((KlNode *)classes->items[c])->name;
      while (*k == '_') k++;
      if (!*k) continue; /* a class named only underscores mangles nothing */
      KlNode *m = new_node(p, KL_N_NAME, ((KlNode *)reads->items[i])->loc);
      m->name = kl_fmt(p->ctx, "_%s%s", k, s);
      vec_push(p, reads, m);
    }
  }
}

static KlNode *nested_def(Parser *p) {
  enter(p);
  Vec decorators = {0};
  int first_line = peek(p)->loc.line;
  while (accept(p, KL_TOK_AT)) {
    vec_push(p, &decorators, named_test(p));
    expect(p, KL_TOK_NEWLINE);
  }
  if (!at(p, KL_TOK_KW_DEF) && !at(p, KL_TOK_KW_CLASS))
    unsupported(p, peek(p)->loc, KL_KILN010, "decorated nested definition");
  KlToken *d = next(p);
  KlToken *name = expect(p, KL_TOK_NAME);
  KlNode *n = function_node(p, d);
  n->lambda->name = name->str;
  n->lambda->line = first_line;
  if (decorators.len) {
    n->b = new_node(p, KL_N_TUPLE, d->loc);
    n->b->list = to_list(&decorators);
  }
  Vec ann = {0};
  if (d->kind == KL_TOK_KW_CLASS) { /* class NAME [(bases and keywords)] */
    n->lambda->is_class = true;
    if (accept(p, KL_TOK_LPAREN)) {
      KlNode call = {0};
      call_args(p, &call);
      for (int i = 0; i < call.list.len; i++)
        if (call.list.items[i]->kind == KL_N_COMP && call.list.items[i]->op == KL_COMP_GENERATOR) unexpected(p);
      n->list = call.list;
      n->kw = call.kw;
    }
  } else {
    expect(p, KL_TOK_LPAREN);
    function_params(p, n, KL_TOK_RPAREN, &ann);
    if (accept(p, KL_TOK_ARROW)) ann_push(p, &ann, "return", test(p));
  }
  if (ann.len) {
    KlGlobal *future = kl_find_global(p->mod, "annotations");
    if (future && future->dotted && !strcmp(future->dotted, "__future__.annotations"))
      unsupported(p, ((KlNode *)ann.items[1])->loc, KL_KILN010,
                  "annotated nested function under `from __future__ import annotations`");
    n->c = new_node(p, KL_N_DICT, d->loc);
    n->c->list = to_list(&ann);
  }
  expect(p, KL_TOK_COLON);
  Vec reads = {0}, classes = {0};
  if (n->lambda->is_class) {
    KlNode *own = new_node(p, KL_N_NAME, name->loc);
    own->name = name->str;
    vec_push(p, &classes, own);
  }
  const int block_from = p->pos;
  int depth = accept(p, KL_TOK_NEWLINE) ? (expect(p, KL_TOK_INDENT), 1) : 0;
  for (KlTokKind prev = KL_TOK_COLON;;) {
    KlToken *t = peek(p);
    if (t->kind == KL_TOK_EOF) unexpected(p);
    next(p);
    if (t->kind != KL_TOK_INDENT && t->kind != KL_TOK_DEDENT && t->kind != KL_TOK_NEWLINE)
      n->lambda->end_line = last_token_end_line(p);
    if (t->kind == KL_TOK_INDENT) depth++;
    else if (t->kind == KL_TOK_DEDENT && --depth == 0) break;
    else if (t->kind == KL_TOK_NEWLINE && depth == 0) break;
    else if (t->kind == KL_TOK_NAME) {
      KlNode *k = new_node(p, KL_N_NAME, t->loc);
      k->name = t->str;
      vec_push(p, &reads, k);
      if (prev == KL_TOK_KW_CLASS) vec_push(p, &classes, k);
    } else if (t->kind == KL_TOK_FSTRING) {
      fstring_names(p, t, &reads);
    }
    prev = t->kind;
  }
  if (classes.len) add_mangled_names(p, &classes, &reads);
  n->lambda->reads = to_list(&reads);
  bind_global_statements(p, block_from, p->pos); /* CPython's block may rebind module names */
  KlNode *target = new_node(p, KL_N_NAME, name->loc);
  target->name = name->str;
  KlNode *assign = new_node(p, KL_N_ASSIGN, d->loc);
  Vec targets = {0};
  vec_push(p, &targets, target);
  assign->list = to_list(&targets);
  assign->b = n;
  leave(p);
  return assign;
}

/* test = or_test ["if" or_test "else" test] | lambda */
static KlNode *test(Parser *p) {
  bool named = p->named_ok;
  p->named_ok = false; /* nothing nested in this test may be NAME := test unparenthesised */
  if (at(p, KL_TOK_KW_LAMBDA)) return lambda_expr(p);
  KlNode *body = bool_op(p, true);
  KlToken *t = peek(p);
  if (t->kind == KL_TOK_WALRUS && named && body->kind == KL_N_NAME && p->toks[p->pos - 1].kind == KL_TOK_NAME) {
    if (p->lambda_bodies) unsupported(p, t->loc, KL_KILN010, "assignment expression (:=) in a lambda");
    next(p);
    KlNode *n = new_node(p, KL_N_NAMEDEXPR, t->loc);
    n->a = body;
    enter(p);
    n->b = test(p);
    leave(p);
    return n;
  }
  if (!accept(p, KL_TOK_KW_IF)) return body;
  KlNode *n = new_node(p, KL_N_IFEXP, t->loc);
  n->b = body;
  n->a = bool_op(p, true);
  expect(p, KL_TOK_KW_ELSE);
  enter(p);
  n->c = test(p);
  leave(p);
  return n;
}

/* named_test = NAME ":=" test | test, where CPython's grammar has a
 * named_expression: conditions of if/elif/while, items of (...), [...] and
 * sets, positional arguments, a subscript, a match subject and guard.
 * Anywhere else an unparenthesised := is a SyntaxError (test() refuses it). */
static KlNode *named_test(Parser *p) {
  p->named_ok = true;
  return test(p);
}

static KlNode *testlist_item(Parser *p, int items) {
  if (items & TL_STAR) return items & TL_NAMED ? star_or_named(p) : star_or_test(p);
  return items & TL_NAMED ? named_test(p) : test(p);
}

/* testlist = test ("," test)* [","]  — a tuple when there is a comma */
static KlNode *testlist(Parser *p, int items) {
  KlLoc loc = peek(p)->loc;
  KlNode *first = testlist_item(p, items);
  if (!at(p, KL_TOK_COMMA)) return first;
  Vec v = {0};
  vec_push(p, &v, first);
  while (accept(p, KL_TOK_COMMA)) {
    KlTokKind k = peek(p)->kind;
    if (k == KL_TOK_NEWLINE || k == KL_TOK_ASSIGN || k == KL_TOK_SEMI || k == KL_TOK_RPAREN ||
        k == KL_TOK_COLON || k == KL_TOK_KW_IN || (k >= KL_TOK_PLUSEQ && k <= KL_TOK_DSTAREQ))
      break;
    vec_push(p, &v, testlist_item(p, items));
  }
  KlNode *n = new_node(p, KL_N_TUPLE, loc);
  n->list = to_list(&v);
  return n;
}

/* ---- statements ---- */

static void check_target(Parser *p, KlNode *t) {
  switch (t->kind) {
  case KL_N_NAME: case KL_N_ATTR: case KL_N_SUBSCRIPT: return;
  case KL_N_STARRED: check_target(p, t->a); return;
  case KL_N_TUPLE:
  case KL_N_LIST:
    for (int i = 0; i < t->list.len; i++) check_target(p, t->list.items[i]);
    return;
  default: unsupported(p, t->loc, KL_KILN010, "assignment to this kind of target");
  }
}

static const struct {
  KlTokKind tok;
  KlBinOp op;
} aug_ops[] = {
    {KL_TOK_PLUSEQ, KL_OP_ADD},       {KL_TOK_MINUSEQ, KL_OP_SUB},     {KL_TOK_STAREQ, KL_OP_MUL},
    {KL_TOK_SLASHEQ, KL_OP_DIV},      {KL_TOK_DSLASHEQ, KL_OP_FLOORDIV}, {KL_TOK_PERCENTEQ, KL_OP_MOD},
    {KL_TOK_ATEQ, KL_OP_MATMUL},      {KL_TOK_AMPEQ, KL_OP_BITAND},    {KL_TOK_PIPEEQ, KL_OP_BITOR},
    {KL_TOK_CARETEQ, KL_OP_BITXOR},   {KL_TOK_LSHIFTEQ, KL_OP_LSHIFT}, {KL_TOK_RSHIFTEQ, KL_OP_RSHIFT},
    {KL_TOK_DSTAREQ, KL_OP_POW},
};

/* expr_stmt = testlist (augassign testlist | (":" test ["=" testlist]) | ("=" testlist)*) */
static KlNode *expr_stmt(Parser *p) {
  KlLoc loc = peek(p)->loc;
  KlNode *first = testlist(p, TL_STAR);
  KlToken *t = peek(p);
  for (size_t i = 0; i < sizeof aug_ops / sizeof aug_ops[0]; i++) {
    if (t->kind != aug_ops[i].tok) continue;
    next(p);
    if (first->kind != KL_N_NAME && first->kind != KL_N_ATTR && first->kind != KL_N_SUBSCRIPT)
      unexpected(p);
    KlNode *n = new_node(p, KL_N_AUGASSIGN, t->loc);
    n->op = (int)aug_ops[i].op;
    n->a = first;
    if (at(p, KL_TOK_KW_YIELD)) unsupported(p, peek(p)->loc, KL_KILN010, "yield");
    n->b = testlist(p, TL_STAR);
    return n;
  }
  if (accept(p, KL_TOK_COLON)) {
    KlNode *n = new_node(p, KL_N_ANNASSIGN, loc);
    if (first->kind != KL_N_NAME && first->kind != KL_N_ATTR && first->kind != KL_N_SUBSCRIPT)
      unexpected(p);
    n->a = first;
    n->c = test(p);
    if (accept(p, KL_TOK_ASSIGN)) n->b = testlist(p, TL_STAR);
    return n;
  }
  if (!at(p, KL_TOK_ASSIGN)) {
    KlNode *n = new_node(p, KL_N_EXPR_STMT, loc);
    n->a = first;
    return n;
  }
  Vec targets = {0};
  KlNode *value = first;
  while (accept(p, KL_TOK_ASSIGN)) {
    check_target(p, value);
    vec_push(p, &targets, value);
    if (at(p, KL_TOK_KW_YIELD)) unsupported(p, peek(p)->loc, KL_KILN010, "yield");
    value = testlist(p, TL_STAR);
  }
  KlNode *n = new_node(p, KL_N_ASSIGN, loc);
  n->list = to_list(&targets);
  n->b = value;
  return n;
}

static char *dotted_name(Parser *p);
static void bind_global(Parser *p, const char *name, KlLoc loc, const char *dotted);

/* `global a, b`: the function reads and writes these in the module's
 * dict. Any module name a function may rebind is dynamic for the whole
 * module (what kiln knows of an import or a def no longer holds), as a
 * module-level assignment to it would make it. The statement itself does
 * nothing: a PASS. */
static KlNode *global_stmt(Parser *p) {
  KlToken *t = next(p);
  KlFunc *f = p->fn;
  do {
    KlToken *name = expect(p, KL_TOK_NAME);
    bool seen = false;
    for (int i = 0; i < f->nglobal_names; i++) seen |= !strcmp(f->global_names[i], name->str);
    if (seen) continue;
    const char **names = kl_alloc(p->ctx, sizeof(char *) * (size_t)(f->nglobal_names + 1));
    if (f->nglobal_names) memcpy(names, f->global_names, sizeof(char *) * (size_t)f->nglobal_names);
    names[f->nglobal_names++] = name->str;
    f->global_names = names;
    bind_global(p, name->str, name->loc, NULL);
  } while (accept(p, KL_TOK_COMMA));
  return new_node(p, KL_N_PASS, t->loc);
}

/* An import in a function binds locals (kiln emits what CPython's
 * IMPORT_NAME/IMPORT_FROM do): `import a.b` binds a, `import a.b as c`
 * binds a.b, `from .a import b as c` binds c. */
static KlNode *local_import(Parser *p) {
  KlToken *t = next(p);
  KlNode *n = new_node(p, t->kind == KL_TOK_KW_IMPORT ? KL_N_IMPORT : KL_N_IMPORTFROM, t->loc);
  if (n->kind == KL_N_IMPORTFROM) {
    for (;; next(p)) {
      if (at(p, KL_TOK_DOT)) n->op += 1;
      else if (at(p, KL_TOK_ELLIPSIS)) n->op += 3;
      else break;
    }
    if (!at(p, KL_TOK_KW_IMPORT)) n->name = dotted_name(p);
    expect(p, KL_TOK_KW_IMPORT);
    if (at(p, KL_TOK_STAR)) unexpected(p); /* a SyntaxError in a function */
  }
  bool paren = n->kind == KL_N_IMPORTFROM && accept(p, KL_TOK_LPAREN);
  Vec items = {0}, targets = {0};
  do {
    if (paren && at(p, KL_TOK_RPAREN)) break;
    KlNode *item = new_node(p, KL_N_KEYWORD, peek(p)->loc);
    KlNode *target = new_node(p, KL_N_NAME, item->loc);
    item->name = n->kind == KL_N_IMPORT ? dotted_name(p) : expect(p, KL_TOK_NAME)->str;
    target->name = item->name;
    if (accept(p, KL_TOK_KW_AS)) {
      KlToken *as = expect(p, KL_TOK_NAME);
      target->name = as->str;
      target->loc = as->loc;
      item->op = 1;
    } else if (n->kind == KL_N_IMPORT) {
      target->name = kl_strndup(p->ctx, item->name, strcspn(item->name, "."));
    }
    vec_push(p, &items, item);
    vec_push(p, &targets, target);
  } while (accept(p, KL_TOK_COMMA));
  if (paren) expect(p, KL_TOK_RPAREN);
  n->kw = to_list(&items);
  n->list = to_list(&targets);
  return n;
}

/* simple_stmt = small_stmt (";" small_stmt)* [";"] NEWLINE */
static KlNode *small_stmt(Parser *p) {
  KlToken *t = peek(p);
  KlNode *n;
  switch (t->kind) {
  case KL_TOK_KW_PASS: next(p); return new_node(p, KL_N_PASS, t->loc);
  case KL_TOK_KW_BREAK:
  case KL_TOK_KW_CONTINUE:
    /* CPython rejects these outside a loop body at compile time */
    if (!p->loops) kl_fatal(p->ctx, KL_KILN001, t->loc, "'%s' outside loop", t->kind == KL_TOK_KW_BREAK ? "break" : "continue");
    next(p);
    return new_node(p, t->kind == KL_TOK_KW_BREAK ? KL_N_BREAK : KL_N_CONTINUE, t->loc);
  case KL_TOK_KW_RETURN:
    next(p);
    n = new_node(p, KL_N_RETURN, t->loc);
    if (!at(p, KL_TOK_NEWLINE) && !at(p, KL_TOK_SEMI)) n->a = testlist(p, TL_STAR);
    return n;
  case KL_TOK_KW_RAISE:
    next(p);
    n = new_node(p, KL_N_RAISE, t->loc);
    if (at(p, KL_TOK_NEWLINE) || at(p, KL_TOK_SEMI))
      return n; /* bare: re-raises the exception being handled */
    n->a = test(p);
    if (accept(p, KL_TOK_KW_FROM)) n->b = test(p);
    return n;
  case KL_TOK_KW_ASSERT:
    next(p);
    n = new_node(p, KL_N_ASSERT, t->loc);
    n->a = test(p);
    if (accept(p, KL_TOK_COMMA)) n->b = test(p);
    return n;
  case KL_TOK_KW_DEL: {
    next(p);
    n = new_node(p, KL_N_DEL, t->loc);
    KlNode *targets = testlist(p, 0);
    Vec v = {0};
    if (targets->kind == KL_N_TUPLE)
      for (int i = 0; i < targets->list.len; i++) vec_push(p, &v, targets->list.items[i]);
    else
      vec_push(p, &v, targets);
    for (int i = 0; i < v.len; i++)
      if (v.items[i]->kind != KL_N_NAME && v.items[i]->kind != KL_N_SUBSCRIPT && v.items[i]->kind != KL_N_ATTR)
        unsupported(p, v.items[i]->loc, KL_KILN010, "del of this kind of target");
    n->list = to_list(&v);
    return n;
  }
  case KL_TOK_KW_GLOBAL: return global_stmt(p);
  case KL_TOK_KW_NONLOCAL: unsupported(p, t->loc, KL_KILN010, "nonlocal statement");
  case KL_TOK_KW_IMPORT:
  case KL_TOK_KW_FROM: return local_import(p);
  case KL_TOK_KW_YIELD: unsupported(p, t->loc, KL_KILN010, "yield");
  default: return expr_stmt(p);
  }
}

static void simple_stmt(Parser *p, Vec *out) {
  for (;;) {
    vec_push(p, out, small_stmt(p));
    if (!accept(p, KL_TOK_SEMI)) break;
    if (at(p, KL_TOK_NEWLINE)) break;
  }
  expect(p, KL_TOK_NEWLINE);
}

static void stmt(Parser *p, Vec *out);

/* if_stmt = "if" test ":" block ("elif" test ":" block)* ["else" ":" block] */
static KlNode *if_stmt(Parser *p) {
  KlToken *t = next(p); /* if or elif */
  KlNode *n = new_node(p, KL_N_IF, t->loc);
  n->a = named_test(p);
  expect(p, KL_TOK_COLON);
  n->body = block(p);
  if (at(p, KL_TOK_KW_ELIF)) {
    Vec v = {0};
    enter(p);
    vec_push(p, &v, if_stmt(p));
    leave(p);
    n->orelse = to_list(&v);
  } else if (accept(p, KL_TOK_KW_ELSE)) {
    expect(p, KL_TOK_COLON);
    n->orelse = block(p);
  }
  return n;
}

/* targets = expr ("," expr)* [","]  — before "in", in a for statement or clause */
static KlNode *for_targets(Parser *p) {
  KlLoc tloc = peek(p)->loc;
  KlNode *first = at(p, KL_TOK_STAR) ? starred(p) : expr(p);
  if (!at(p, KL_TOK_COMMA)) return first;
  Vec v = {0};
  vec_push(p, &v, first);
  while (accept(p, KL_TOK_COMMA)) {
    if (at(p, KL_TOK_KW_IN)) break;
    vec_push(p, &v, at(p, KL_TOK_STAR) ? starred(p) : expr(p));
  }
  KlNode *n = new_node(p, KL_N_TUPLE, tloc);
  n->list = to_list(&v);
  return n;
}

/* for_stmt = "for" targets "in" testlist ":" block ["else" ":" block]
 * while_stmt = "while" test ":" block ["else" ":" block] */
static KlNode *loop_stmt(Parser *p) {
  KlToken *t = next(p);
  KlNode *n;
  if (t->kind == KL_TOK_KW_WHILE) {
    n = new_node(p, KL_N_WHILE, t->loc);
    n->a = named_test(p);
  } else {
    n = new_node(p, KL_N_FOR, t->loc);
    n->a = for_targets(p);
    check_target(p, n->a);
    expect(p, KL_TOK_KW_IN);
    n->b = testlist(p, TL_STAR);
  }
  expect(p, KL_TOK_COLON);
  p->loops++;
  n->body = block(p);
  p->loops--;
  if (accept(p, KL_TOK_KW_ELSE)) {
    expect(p, KL_TOK_COLON);
    n->orelse = block(p);
  }
  return n;
}

/* +1 for a token that opens a bracket, -1 for one that closes it, else 0. */
static int bracket_step(KlTokKind k) {
  if (k == KL_TOK_LPAREN || k == KL_TOK_LBRACKET || k == KL_TOK_LBRACE) return 1;
  return k == KL_TOK_RPAREN || k == KL_TOK_RBRACKET || k == KL_TOK_RBRACE ? -1 : 0;
}

/* with_stmt = "with" item ("," item)* ":" block
 * item      = test ["as" target]
 * Several items nest, as in Python. Whether an item is a guard kiln
 * applies itself (torch.no_grad(), torch.inference_mode()) is decided once
 * names are resolved (resolve.c); parenthesised item lists stay Python. */
/* Is the `(` here the start of a parenthesised item list, `with (a as b,
 * c):` (its `)` followed by the `:`)? Else it starts an item's expression. */
static bool with_item_list(Parser *p) {
  if (!at(p, KL_TOK_LPAREN)) return false;
  int depth = 0;
  for (int i = p->pos; i < p->ntoks && p->toks[i].kind != KL_TOK_EOF; i++) {
    KlTokKind k = p->toks[i].kind;
    if (bracket_step(k) > 0) depth++;
    else if (bracket_step(k) < 0 && --depth == 0)
      return i + 1 < p->ntoks && p->toks[i + 1].kind == KL_TOK_COLON;
    else if (k == KL_TOK_NEWLINE && depth == 0) return false;
  }
  return false;
}

static KlNode *with_stmt(Parser *p) {
  KlToken *t = next(p);
  Vec items = {0};
  const bool listed = with_item_list(p); /* `with (a, b):` is two items, not a tuple (3.9's grammar) */
  if (listed) next(p);
  do {
    if (listed && at(p, KL_TOK_RPAREN)) break; /* a trailing comma */
    if (items.len) enter(p); /* each further item nests one level deeper */
    int item0 = p->pos;
    KlNode *item = listed ? named_test(p) : test(p); /* `with (y := a, b):` */
    if (bare_walrus_at(p, item0) && at(p, KL_TOK_KW_AS)) unexpected(p);
    KlNode *n = new_node(p, KL_N_WITH, items.len ? item->loc : t->loc);
    n->ival = t->loc.line; /* the statement's: 3.10-3.12 report an item's __enter__/__exit__ errors there */
    n->a = item;
    if (accept(p, KL_TOK_KW_AS)) {
      n->b = test(p);
      check_target(p, n->b);
    }
    vec_push(p, &items, n);
  } while (accept(p, KL_TOK_COMMA));
  if (listed) expect(p, KL_TOK_RPAREN);
  expect(p, KL_TOK_COLON);
  KlNodeList body = block(p);
  for (int i = 1; i < items.len; i++) leave(p);
  KlNode **it = items.items;
  for (int i = items.len - 1; i >= 0; i--) {
    it[i]->body = body;
    if (i > 0) {
      Vec one = {0};
      vec_push(p, &one, it[i]);
      body = to_list(&one);
    }
  }
  return it[0];
}

/* try_stmt = "try" ":" block handler+ ["else" ":" block] ["finally" ":" block]
 *          | "try" ":" block "finally" ":" block
 * handler  = "except" [test ["as" NAME]] ":" block */
static KlNode *try_stmt(Parser *p) {
  KlToken *t = next(p);
  KlNode *n = new_node(p, KL_N_TRY, t->loc);
  expect(p, KL_TOK_COLON);
  n->body = block(p);
  Vec handlers = {0};
  KlNode *bare = NULL;
  while (at(p, KL_TOK_KW_EXCEPT)) {
    KlToken *x = next(p);
    if (at(p, KL_TOK_STAR)) unsupported(p, x->loc, KL_KILN010, "except* clause");
    if (bare) kl_fatal(p->ctx, KL_KILN001, bare->loc, "default 'except:' must be last");
    KlNode *h = new_node(p, KL_N_EXCEPT, x->loc);
    if (!at(p, KL_TOK_COLON)) {
      h->a = test(p);
      if (accept(p, KL_TOK_KW_AS)) {
        KlToken *name = expect(p, KL_TOK_NAME);
        h->b = new_node(p, KL_N_NAME, name->loc);
        h->b->name = name->str;
      }
    } else {
      bare = h;
    }
    expect(p, KL_TOK_COLON);
    h->body = block(p);
    vec_push(p, &handlers, h);
  }
  n->list = to_list(&handlers);
  if (handlers.len && accept(p, KL_TOK_KW_ELSE)) {
    expect(p, KL_TOK_COLON);
    n->orelse = block(p);
  }
  if (accept(p, KL_TOK_KW_FINALLY)) {
    expect(p, KL_TOK_COLON);
    n->kw = block(p);
  }
  if (!handlers.len && !n->kw.len) unexpected(p);
  return n;
}

/* ---- match statements ----
 * A match statement becomes ordinary statements over hidden locals (names
 * starting with '$', which no source can spell), doing what CPython's
 * compiler makes of it, in its order:
 *
 *   try:
 *       $mN_s = SUBJECT
 *       [$mN_done = False]
 *       <case 1>            each case: its pattern's tests as nested ifs; at the
 *       if not $mN_done:    innermost one the captures are bound (only once the
 *           <case 2> ...    whole pattern matched), then `if GUARD:` sets done,
 *   finally:                drops the hidden values and runs the body
 *       <drop the hidden values>
 *
 * The tests are CPython's instructions (MATCHOP nodes, emit.c): MATCH_SEQUENCE,
 * MATCH_MAPPING, GET_LEN, MATCH_KEYS, MATCH_CLASS; a sequence pattern without
 * a `*_` unpacks as an assignment does (UNPACK_SEQUENCE/UNPACK_EX), one with
 * `*_` indexes (with len(subject) - k after the star); a value pattern is
 * `subject == value`, None/True/False `subject is value`. An or-pattern
 * tries its alternatives until one sets its flag; a capture goes through
 * $mN_c_NAME, so every alternative can bind it before the case commits.
 * A value is released where CPython's stack lets go of it (`del` of a hidden
 * local, bound or not): an item when its sub-pattern is done with it, what
 * a failed case extracted before the next case, everything on an error. */

typedef enum { PAT_WILD, PAT_CAPTURE, PAT_VALUE, PAT_SINGLETON, PAT_SEQ, PAT_STAR, PAT_MAP, PAT_CLASS, PAT_AS,
               PAT_OR } PatKind;

typedef struct Pat {
  PatKind kind;
  KlLoc loc;
  const char *name;   /* CAPTURE, AS, STAR (NULL: `*_`), MAP's `**rest` (or NULL) */
  KlNode *value;      /* VALUE, SINGLETON: the expression; CLASS: the class */
  struct Pat **items; /* SEQ items, OR alternatives, AS's pattern, MAP values, CLASS positional then keyword ones */
  int nitems;
  KlNode **keys;      /* MAP: its keys */
  KlNodeList kwnames; /* CLASS: KEYWORD nodes naming the keyword sub-patterns (the last kwnames.len items) */
  bool synthetic;     /* a capture kiln made (an `as` name, a `**rest`): not a pattern CPython compiles */
} Pat;

typedef struct PatVec {
  Pat **items;
  int len, cap;
} PatVec;

static void pat_push(Parser *p, PatVec *v, Pat *x) {
  if (v->len == v->cap) {
    int cap = v->cap ? v->cap * 2 : 4;
    Pat **items = kl_alloc(p->ctx, sizeof(Pat *) * (size_t)cap);
    if (v->len) memcpy(items, v->items, sizeof(Pat *) * (size_t)v->len);
    v->items = items;
    v->cap = cap;
  }
  v->items[v->len++] = x;
}

static Pat *new_pat(Parser *p, PatKind kind, KlLoc loc) {
  Pat *x = kl_alloc(p->ctx, sizeof *x);
  x->kind = kind;
  x->loc = loc;
  return x;
}

static Pat *pattern(Parser *p);

/* A literal: a signed number, complex (`-1+2j`), strings, None/True/False.
 * A term of `+`/`-` parses numbers: CPython allowed only those. */
static KlNode *literal_expr(Parser *p) {
  KlToken *t = peek(p);
  if (t->kind == KL_TOK_STRING || t->kind == KL_TOK_BYTES || t->kind == KL_TOK_FSTRING) return strings(p);
  if (t->kind == KL_TOK_KW_NONE || t->kind == KL_TOK_KW_TRUE || t->kind == KL_TOK_KW_FALSE) return atom(p);
  if (t->kind == KL_TOK_INT || t->kind == KL_TOK_FLOAT || t->kind == KL_TOK_IMAG || t->kind == KL_TOK_MINUS)
    return binary(p, 4);
  unexpected(p);
}

/* name_or_attr = NAME ("." NAME)* */
static KlNode *name_or_attr(Parser *p) {
  KlToken *t = expect(p, KL_TOK_NAME);
  KlNode *n = new_node(p, KL_N_NAME, t->loc);
  n->name = t->str;
  while (accept(p, KL_TOK_DOT)) {
    KlToken *name = expect(p, KL_TOK_NAME);
    KlNode *a = new_node(p, KL_N_ATTR, name->loc);
    a->a = n;
    a->name = name->str;
    n = a;
  }
  return n;
}

/* The items of a sequence pattern up to `close` (and `if` after an open
 * one, a case's `a, b`): patterns and one `*NAME`. */
static void sequence_items(Parser *p, PatVec *v, KlTokKind close) {
  while (!at(p, close) && !(close == KL_TOK_COLON && at(p, KL_TOK_KW_IF))) {
    if (at(p, KL_TOK_STAR)) {
      KlToken *s = next(p);
      KlToken *name = expect(p, KL_TOK_NAME);
      Pat *x = new_pat(p, PAT_STAR, s->loc);
      x->name = strcmp(name->str, "_") ? name->str : NULL;
      pat_push(p, v, x);
    } else {
      pat_push(p, v, pattern(p));
    }
    if (!accept(p, KL_TOK_COMMA)) break;
  }
}

static Pat *seq_pat(Parser *p, KlLoc loc, PatVec *v) {
  Pat *x = new_pat(p, PAT_SEQ, loc);
  x->items = v->items;
  x->nitems = v->len;
  return x;
}

static Pat *class_pat(Parser *p, KlNode *cls, KlLoc loc) {
  Pat *x = new_pat(p, PAT_CLASS, loc);
  x->value = cls;
  expect(p, KL_TOK_LPAREN);
  PatVec v = {0};
  Vec kws = {0};
  while (!at(p, KL_TOK_RPAREN)) {
    if (at(p, KL_TOK_NAME) && peek2(p)->kind == KL_TOK_ASSIGN) {
      KlToken *name = next(p);
      next(p);
      KlNode *k = new_node(p, KL_N_KEYWORD, name->loc);
      k->name = name->str;
      vec_push(p, &kws, k);
    } else if (kws.len) {
      unexpected(p); /* a positional sub-pattern after a keyword one: CPython's SyntaxError */
    }
    pat_push(p, &v, pattern(p));
    if (!accept(p, KL_TOK_COMMA)) break;
  }
  expect(p, KL_TOK_RPAREN);
  x->items = v.items;
  x->nitems = v.len;
  x->kwnames = to_list(&kws);
  return x;
}

/* closed_pattern = literal | capture | "_" | value | group | sequence | mapping | class */
static Pat *closed_pattern(Parser *p) {
  KlToken *t = peek(p);
  Pat *x;
  switch (t->kind) {
  case KL_TOK_NAME: {
    if (peek2(p)->kind != KL_TOK_DOT && peek2(p)->kind != KL_TOK_LPAREN) {
      next(p);
      x = new_pat(p, strcmp(t->str, "_") ? PAT_CAPTURE : PAT_WILD, t->loc);
      x->name = t->str;
      return x;
    }
    KlNode *n = name_or_attr(p);
    if (at(p, KL_TOK_LPAREN)) return class_pat(p, n, t->loc);
    x = new_pat(p, PAT_VALUE, t->loc);
    x->value = n;
    return x;
  }
  case KL_TOK_LPAREN:
  case KL_TOK_LBRACKET: {
    next(p);
    const KlTokKind close = t->kind == KL_TOK_LPAREN ? KL_TOK_RPAREN : KL_TOK_RBRACKET;
    PatVec v = {0};
    if (close == KL_TOK_RPAREN && !at(p, KL_TOK_RPAREN) && !at(p, KL_TOK_STAR)) {
      Pat *first = pattern(p);
      if (accept(p, KL_TOK_RPAREN)) return first; /* a group */
      expect(p, KL_TOK_COMMA);
      pat_push(p, &v, first);
    }
    sequence_items(p, &v, close);
    expect(p, close);
    return seq_pat(p, t->loc, &v);
  }
  case KL_TOK_LBRACE: {
    next(p);
    x = new_pat(p, PAT_MAP, t->loc);
    PatVec v = {0};
    Vec keys = {0};
    while (!at(p, KL_TOK_RBRACE)) {
      if (accept(p, KL_TOK_DSTAR)) {
        x->name = expect(p, KL_TOK_NAME)->str;
        accept(p, KL_TOK_COMMA);
        break;
      }
      vec_push(p, &keys, at(p, KL_TOK_NAME) ? name_or_attr(p) : literal_expr(p));
      expect(p, KL_TOK_COLON);
      pat_push(p, &v, pattern(p));
      if (!accept(p, KL_TOK_COMMA)) break;
    }
    expect(p, KL_TOK_RBRACE);
    x->items = v.items;
    x->nitems = v.len;
    x->keys = keys.items;
    return x;
  }
  case KL_TOK_KW_NONE:
  case KL_TOK_KW_TRUE:
  case KL_TOK_KW_FALSE:
    x = new_pat(p, PAT_SINGLETON, t->loc);
    x->value = atom(p);
    return x;
  default:
    x = new_pat(p, PAT_VALUE, t->loc);
    x->value = literal_expr(p);
    return x;
  }
}

/* pattern = or_pattern ["as" NAME]; or_pattern = closed_pattern ("|" closed_pattern)* */
static Pat *pattern(Parser *p) {
  enter(p);
  KlLoc loc = peek(p)->loc;
  PatVec alts = {0};
  do pat_push(p, &alts, closed_pattern(p));
  while (accept(p, KL_TOK_PIPE));
  Pat *x = alts.items[0];
  if (alts.len > 1) {
    x = new_pat(p, PAT_OR, loc);
    x->items = alts.items;
    x->nitems = alts.len;
  }
  if (accept(p, KL_TOK_KW_AS)) {
    Pat *as = new_pat(p, PAT_AS, loc);
    as->name = expect(p, KL_TOK_NAME)->str;
    as->items = kl_alloc(p->ctx, sizeof(Pat *));
    as->items[0] = x;
    as->nitems = 1;
    x = as;
  }
  leave(p);
  return x;
}

/* A case's patterns: one, or an open sequence `a, *b` (a sequence pattern). */
static Pat *case_patterns(Parser *p) {
  KlLoc loc = peek(p)->loc;
  PatVec v = {0};
  if (!at(p, KL_TOK_STAR)) {
    Pat *first = pattern(p);
    if (!accept(p, KL_TOK_COMMA)) return first;
    pat_push(p, &v, first);
  }
  sequence_items(p, &v, KL_TOK_COLON);
  return seq_pat(p, loc, &v);
}

/* The generation of one match statement's code. */
typedef struct Match {
  Parser *p;
  int id;
  int ntemps;
  const char *subject;   /* the hidden local holding the subject */
  bool consume;          /* this case's pattern consumes the subject (CPython's last case but a
                            trailing `case _`, which gets no copy of it): release it as any value */
  Vec hidden;            /* a NAME per hidden object local made so far: dropped before a body and at the end */
  const char **captured; /* the current case's capture names, in CPython's store order */
  int ncaptured, capcaptured;
  KlNode *guard;         /* the current case's guard, or NULL */
  KlNodeList body;       /* the current case's body */
  KlLoc case_loc;        /* its pattern's */
  const char *done;      /* the flag a matched case sets, NULL with one case */
  int line310;           /* the line 3.10 and 3.11 give what they compile next: the last pattern's they
                            compiled (their compiler sets it per pattern and never restores it) */
} Match;

/* What remains to match after a test: a pattern against a hidden local,
 * then the rest; a value CPython's stack no longer holds (drop); at the end
 * an or-alternative's flag or the case's success. */
typedef struct Todo {
  Pat *pat;            /* NULL: drop, or the end */
  const char *subject; /* the hidden local it matches */
  KlNode *fetch;       /* before matching: `subject = fetch` (an item of a sequence, **rest), or NULL */
  const char *drop;    /* no pattern: release this hidden local, then the rest */
  const char *flag;    /* at the end: set this or-pattern flag (NULL: the case succeeds) */
  struct Todo *next;
} Todo;

static KlNode *hidden_name(Match *m, const char *name, KlLoc loc) {
  KlNode *n = new_node(m->p, KL_N_NAME, loc);
  n->name = (char *)name;
  return n;
}

static const char *new_hidden(Match *m, const char *what, KlLoc loc) {
  const char *name = kl_fmt(m->p->ctx, "$m%d_%s%d", m->id, what, m->ntemps++);
  vec_push(m->p, &m->hidden, hidden_name(m, name, loc));
  return name;
}

static KlNode *assign_node(Match *m, KlNode *target, KlNode *value, KlLoc loc) {
  KlNode *n = new_node(m->p, KL_N_ASSIGN, loc);
  Vec v = {0};
  vec_push(m->p, &v, target);
  n->list = to_list(&v);
  n->b = value;
  return n;
}

static KlNode *set_flag(Match *m, const char *flag, bool value, KlLoc loc) {
  return assign_node(m, hidden_name(m, flag, loc), new_node(m->p, value ? KL_N_TRUE : KL_N_FALSE, loc), loc);
}

static KlNode *match_op(Match *m, int op, const char *subject, KlLoc loc) {
  KlNode *n = new_node(m->p, KL_N_MATCHOP, loc);
  n->op = op;
  n->a = hidden_name(m, subject, loc);
  return n;
}

static KlNode *compare_node(Match *m, KlNode *a, int op, KlNode *b, KlLoc loc) {
  KlNode *n = new_node(m->p, KL_N_COMPARE, loc);
  Vec v = {0};
  vec_push(m->p, &v, a);
  vec_push(m->p, &v, b);
  n->list = to_list(&v);
  n->cmpops = kl_alloc(m->p->ctx, sizeof(int));
  n->cmpops[0] = op;
  return n;
}

static KlNode *if_node(Match *m, KlNode *test, Vec *body) {
  KlNode *n = new_node(m->p, KL_N_IF, test->loc);
  n->a = test;
  n->body = to_list(body);
  return n;
}

/* `del` of hidden locals that does not mind them unbound: the hidden values
 * made so far, the subject too or not, the latest first (CPython pops its
 * stack from the top). */
static KlNode *drop_hidden(Match *m, bool subject, KlLoc loc) {
  KlNode *n = new_node(m->p, KL_N_DEL, loc);
  n->op = 1;
  Vec v = {0};
  for (int i = m->hidden.len - 1; i >= 0; i--)
    if (subject || strcmp(m->hidden.items[i]->name, m->subject))
      vec_push(m->p, &v, hidden_name(m, m->hidden.items[i]->name, loc));
  n->list = to_list(&v);
  return n;
}

static KlNode *drop_one(Match *m, const char *name, KlLoc loc) {
  KlNode *n = new_node(m->p, KL_N_DEL, loc);
  n->op = 1;
  Vec v = {0};
  vec_push(m->p, &v, hidden_name(m, name, loc));
  n->list = to_list(&v);
  return n;
}

static Todo *todo(Match *m, Pat *pat, const char *subject, KlNode *fetch, Todo *next) {
  Todo *t = kl_alloc(m->p->ctx, sizeof *t);
  t->pat = pat;
  t->subject = subject;
  t->fetch = fetch;
  t->next = next;
  return t;
}

/* name is the subject, which later cases match: kept. */
static bool kept(const Match *m, const char *name) { return !m->consume && !strcmp(name, m->subject); }

/* Then release `name` (unless kept). */
static Todo *then_drop(Match *m, const char *name, Todo *next) {
  if (kept(m, name)) return next;
  Todo *t = todo(m, NULL, NULL, NULL, next);
  t->drop = name;
  return t;
}

static void gen(Match *m, Todo *t, Vec *out);

/* The case matched: bind its captures, test its guard, run its body. */
static void case_success(Match *m, Vec *out) {
  KlLoc loc = m->case_loc;
  for (int i = 0; i < m->ncaptured; i++) {
    KlNode *target = new_node(m->p, KL_N_NAME, loc);
    target->name = (char *)m->captured[i];
    vec_push(m->p, out, assign_node(m, target, hidden_name(m, kl_fmt(m->p->ctx, "$m%d_c_%s", m->id, m->captured[i]), loc), loc));
  }
  Vec body = {0};
  if (m->done) vec_push(m->p, &body, set_flag(m, m->done, true, loc));
  vec_push(m->p, &body, drop_hidden(m, true, loc));
  for (int i = 0; i < m->body.len; i++) vec_push(m->p, &body, m->body.items[i]);
  if (!m->guard) {
    for (int i = 0; i < body.len; i++) vec_push(m->p, out, body.items[i]);
    return;
  }
  vec_push(m->p, out, if_node(m, m->guard, &body));
}

/* A capture: into its hidden name now (assign), bound when the case
 * matches, in the order record puts it in. */
static void capture(Match *m, const char *name, const char *subject, KlLoc loc, Vec *out, bool assign, bool record) {
  bool seen = !record;
  for (int i = 0; i < m->ncaptured; i++) seen |= !strcmp(m->captured[i], name);
  const char *hidden = kl_fmt(m->p->ctx, "$m%d_c_%s", m->id, name);
  if (!seen) {
    if (m->ncaptured == m->capcaptured) {
      int cap = m->capcaptured ? m->capcaptured * 2 : 4;
      const char **c = kl_alloc(m->p->ctx, sizeof(char *) * (size_t)cap);
      if (m->ncaptured) memcpy(c, m->captured, sizeof(char *) * (size_t)m->ncaptured);
      m->captured = c;
      m->capcaptured = cap;
    }
    m->captured[m->ncaptured++] = name;
    bool known = false;
    for (int i = 0; i < m->hidden.len; i++) known |= !strcmp(m->hidden.items[i]->name, hidden);
    if (!known) vec_push(m->p, &m->hidden, hidden_name(m, hidden, loc));
  }
  if (assign) {
    bool known = false;
    for (int i = 0; i < m->hidden.len; i++) known |= !strcmp(m->hidden.items[i]->name, hidden);
    if (!known) vec_push(m->p, &m->hidden, hidden_name(m, hidden, loc));
    vec_push(m->p, out, assign_node(m, hidden_name(m, hidden, loc), hidden_name(m, subject, loc), loc));
  }
}

static bool is_wild(const Pat *x) { return x->kind == PAT_WILD || (x->kind == PAT_STAR && !x->name); }

/* `(t0, t1, ...) = holder`, then release holder: a sequence pattern's items
 * (UNPACK_SEQUENCE/UNPACK_EX), or the tuple MATCH_CLASS or MATCH_KEYS made
 * (3.11+ unpack it too). Each item is then matched in order (a wildcard
 * releases its item at its turn), before rest. */
static Todo *unpack_items(Match *m, Pat **items, int n, const char *holder, KlLoc loc, Vec *out, Todo *rest) {
  KlNode *targets = new_node(m->p, KL_N_TUPLE, loc);
  KlNode **tv = kl_alloc(m->p->ctx, sizeof(KlNode *) * (size_t)(n ? n : 1));
  const char **names = kl_alloc(m->p->ctx, sizeof(char *) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    names[i] = new_hidden(m, "t", items[i]->loc);
    KlNode *target = hidden_name(m, names[i], items[i]->loc);
    if (items[i]->kind == PAT_STAR) {
      KlNode *st = new_node(m->p, KL_N_STARRED, items[i]->loc);
      st->a = target;
      target = st;
    }
    tv[i] = target;
  }
  targets->list = (KlNodeList){tv, n};
  vec_push(m->p, out, assign_node(m, targets, hidden_name(m, holder, loc), loc));
  if (!kept(m, holder)) vec_push(m->p, out, drop_one(m, holder, loc)); /* consumed */
  for (int i = n - 1; i >= 0; i--) {
    Pat *sub = items[i];
    if (sub->kind == PAT_STAR && sub->name) { /* *rest: the list */
      sub = new_pat(m->p, PAT_CAPTURE, items[i]->loc);
      sub->name = items[i]->name;
    } else if (sub->kind == PAT_STAR) {
      sub = new_pat(m->p, PAT_WILD, items[i]->loc);
    }
    rest = todo(m, sub, names[i], NULL, rest);
  }
  return rest;
}

static void gen_sequence(Match *m, Pat *x, const char *s, Todo *rest, Vec *out) {
  int star = -1;
  bool only_wild = true;
  for (int i = 0; i < x->nitems; i++) {
    if (x->items[i]->kind == PAT_STAR) star = i;
    only_wild &= is_wild(x->items[i]);
  }
  const int n = x->nitems;
  Vec in = {0};
  if (only_wild) {
    gen(m, then_drop(m, s, rest), &in);
  } else if (star >= 0 && !x->items[star]->name) { /* `*_`: index, from the end after it */
    rest = then_drop(m, s, rest);
    for (int i = n - 1; i >= 0; i--) {
      if (is_wild(x->items[i])) continue;
      KlNode *f = match_op(m, KL_MATCH_INDEX, s, x->loc);
      f->ival = i > star ? -(int64_t)(n - i) : i;
      rest = todo(m, x->items[i], new_hidden(m, "t", x->items[i]->loc), f, rest);
    }
    gen(m, rest, &in);
  } else {
    gen(m, unpack_items(m, x->items, n, s, x->loc, &in, rest), &in);
  }
  KlNode *size = new_node(m->p, KL_N_INT, x->loc);
  size->ival = star >= 0 ? n - 1 : n;
  Vec len_ok = {0};
  if (star >= 0 && n == 1) { /* [*_], [*rest]: no length to check */
    len_ok = in;
  } else {
    KlNode *len = match_op(m, KL_MATCH_LEN, s, x->loc);
    vec_push(m->p, &len_ok, if_node(m, compare_node(m, len, star >= 0 ? KL_CMP_GE : KL_CMP_EQ, size, x->loc), &in));
  }
  vec_push(m->p, out, if_node(m, match_op(m, KL_MATCH_SEQUENCE, s, x->loc), &len_ok));
}

static void gen_mapping(Match *m, Pat *x, const char *s, Todo *rest, Vec *out) {
  const int n = x->nitems;
  Vec in = {0};
  if (!n && !x->name) {
    gen(m, then_drop(m, s, rest), &in);
  } else {
    const char *keys = new_hidden(m, "k", x->loc);
    KlNode *tuple = new_node(m->p, KL_N_TUPLE, x->loc);
    Vec kv = {0};
    for (int i = 0; i < n; i++) vec_push(m->p, &kv, x->keys[i]);
    tuple->list = to_list(&kv);
    vec_push(m->p, &in, assign_node(m, hidden_name(m, keys, x->loc), tuple, x->loc));
    /* after the values matched: **rest, a dict of the other items; then the
     * keys and the subject are done with */
    rest = then_drop(m, s, then_drop(m, keys, rest));
    if (x->name) {
      Pat *cap = new_pat(m->p, PAT_CAPTURE, x->loc);
      cap->name = x->name;
      cap->synthetic = true;
      KlNode *f = match_op(m, KL_MATCH_REST, s, x->loc);
      f->b = hidden_name(m, keys, x->loc);
      rest = todo(m, cap, new_hidden(m, "r", x->loc), f, rest);
    }
    if (!n) {
      gen(m, rest, &in);
    } else {
      const char *values = new_hidden(m, "v", x->loc);
      KlNode *get = match_op(m, KL_MATCH_KEYS, s, x->loc);
      get->b = hidden_name(m, keys, x->loc);
      vec_push(m->p, &in, assign_node(m, hidden_name(m, values, x->loc), get, x->loc));
      Vec found = {0};
      gen(m, unpack_items(m, x->items, n, values, x->loc, &found, rest), &found);
      vec_push(m->p, &in, if_node(m, match_op(m, KL_MATCH_FOUND, values, x->loc), &found));
    }
  }
  Vec is_map = {0};
  if (n) {
    KlNode *size = new_node(m->p, KL_N_INT, x->loc);
    size->ival = n;
    vec_push(m->p, &is_map, if_node(m, compare_node(m, match_op(m, KL_MATCH_LEN, s, x->loc), KL_CMP_GE, size, x->loc), &in));
  } else {
    is_map = in;
  }
  vec_push(m->p, out, if_node(m, match_op(m, KL_MATCH_MAPPING, s, x->loc), &is_map));
}

static void gen_class(Match *m, Pat *x, const char *s, Todo *rest, Vec *out) {
  const char *attrs = new_hidden(m, "a", x->loc);
  KlNode *op = match_op(m, KL_MATCH_CLASS, s, x->loc);
  op->b = x->value;
  op->ival = x->nitems - x->kwnames.len;
  op->kw = x->kwnames;
  vec_push(m->p, out, assign_node(m, hidden_name(m, attrs, x->loc), op, x->loc));
  if (!kept(m, s)) vec_push(m->p, out, drop_one(m, s, x->loc)); /* MATCH_CLASS consumed it */
  Vec found = {0};
  gen(m, unpack_items(m, x->items, x->nitems, attrs, x->loc, &found, rest), &found);
  vec_push(m->p, out, if_node(m, match_op(m, KL_MATCH_FOUND, attrs, x->loc), &found));
}

static void gen_or(Match *m, Pat *x, const char *s, Todo *rest, Vec *out) {
  const char *flag = kl_fmt(m->p->ctx, "$m%d_ok%d", m->id, m->ntemps++);
  vec_push(m->p, out, set_flag(m, flag, false, x->loc));
  for (int i = 0; i < x->nitems; i++) {
    Todo *end = todo(m, NULL, NULL, NULL, NULL);
    end->flag = flag;
    Vec alt = {0};
    const char *copy = s; /* each alternative matches (and may release) a copy of a temporary */
    if (!kept(m, s)) {
      copy = new_hidden(m, "t", x->items[i]->loc);
      vec_push(m->p, &alt, assign_node(m, hidden_name(m, copy, x->items[i]->loc), hidden_name(m, s, x->loc), x->loc));
    }
    gen(m, todo(m, x->items[i], copy, NULL, end), &alt);
    if (i == 0) {
      for (int j = 0; j < alt.len; j++) vec_push(m->p, out, alt.items[j]);
    } else {
      KlNode *not = new_node(m->p, KL_N_NOT, x->items[i]->loc);
      not->a = hidden_name(m, flag, x->items[i]->loc);
      vec_push(m->p, out, if_node(m, not, &alt));
    }
  }
  Vec then = {0};
  gen(m, then_drop(m, s, rest), &then);
  vec_push(m->p, out, if_node(m, hidden_name(m, flag, x->loc), &then));
  if (!kept(m, s)) vec_push(m->p, out, drop_one(m, s, x->loc));
}

/* `if test(subject): <rest>`, the subject released as the test consumes it
 * (on either path) when it is a temporary. */
static void gen_test(Match *m, KlNode *test, const char *s, Todo *rest, Vec *out) {
  Vec then = {0};
  gen(m, then_drop(m, s, rest), &then);
  vec_push(m->p, out, if_node(m, test, &then));
  if (!kept(m, s)) vec_push(m->p, out, drop_one(m, s, test->loc));
}

static void gen(Match *m, Todo *t, Vec *out) {
  enter(m->p);
  if (!t->pat && t->drop) {
    vec_push(m->p, out, drop_one(m, t->drop, m->case_loc));
    gen(m, t->next, out);
    leave(m->p);
    return;
  }
  if (!t->pat) {
    if (t->flag) vec_push(m->p, out, set_flag(m, t->flag, true, m->case_loc));
    else case_success(m, out);
    leave(m->p);
    return;
  }
  Pat *x = t->pat;
  const char *s = t->subject;
  if (t->fetch) {
    t->fetch->line310 = m->line310;
    vec_push(m->p, out, assign_node(m, hidden_name(m, s, x->loc), t->fetch, t->fetch->loc));
  }
  if (!x->synthetic && x->kind != PAT_WILD) m->line310 = x->loc.line;
  switch (x->kind) {
  case PAT_WILD: gen(m, then_drop(m, s, t->next), out); break;
  case PAT_CAPTURE:
  case PAT_STAR:
    capture(m, x->name, s, x->loc, out, !x->synthetic || t->fetch, true);
    gen(m, then_drop(m, s, t->next), out);
    break;
  case PAT_AS: {
    /* the value is kept for the name first (the pattern may release it),
     * the name recorded after the pattern's own (CPython's store order) */
    capture(m, x->name, s, x->loc, out, true, false);
    Pat *cap = new_pat(m->p, PAT_CAPTURE, x->loc);
    cap->name = x->name;
    cap->synthetic = true;
    gen(m, todo(m, x->items[0], s, NULL, todo(m, cap, s, NULL, t->next)), out);
    break;
  }
  case PAT_VALUE:
  case PAT_SINGLETON:
    gen_test(m, compare_node(m, hidden_name(m, s, x->loc), x->kind == PAT_VALUE ? KL_CMP_EQ : KL_CMP_IS, x->value,
                             x->loc), s, t->next, out);
    break;
  case PAT_SEQ: gen_sequence(m, x, s, t->next, out); break;
  case PAT_MAP: gen_mapping(m, x, s, t->next, out); break;
  case PAT_CLASS: gen_class(m, x, s, t->next, out); break;
  case PAT_OR: gen_or(m, x, s, t->next, out); break;
  }
  leave(m->p);
}

/* `match` begins a match statement when its logical line ends with ':' (no
 * simple statement does) and an indented `case` follows. */
static bool at_match_stmt(Parser *p) {
  KlToken *t = peek(p);
  if (t->kind != KL_TOK_NAME || strcmp(t->str, "match")) return false;
  int i = p->pos + 1;
  if (i >= p->ntoks || p->toks[i].kind == KL_TOK_COLON) return false;
  while (i < p->ntoks && p->toks[i].kind != KL_TOK_NEWLINE && p->toks[i].kind != KL_TOK_EOF) i++;
  return i + 2 < p->ntoks && p->toks[i - 1].kind == KL_TOK_COLON && p->toks[i + 1].kind == KL_TOK_INDENT &&
         p->toks[i + 2].kind == KL_TOK_NAME && !strcmp(p->toks[i + 2].str, "case");
}

/* match_stmt = "match" subject ":" NEWLINE INDENT case+ DEDENT
 * case = "case" patterns ["if" test] ":" block
 * All of it in `try: ... finally: <drop the hidden values>`: an error in a
 * pattern or a guard releases them at once, as CPython's unwinding pops
 * its stack. */
static void match_stmt(Parser *p, Vec *stmts_out) {
  KlToken *t = next(p);
  Match m = {.p = p, .id = p->ctx->next_node_id++};
  KlNode *subject = testlist(p, TL_STAR | TL_NAMED);
  expect(p, KL_TOK_COLON);
  expect(p, KL_TOK_NEWLINE);
  expect(p, KL_TOK_INDENT);
  Vec code_all = {0}, *out = &code_all;
  const char *s = m.subject = new_hidden(&m, "s", t->loc);
  vec_push(p, out, assign_node(&m, hidden_name(&m, s, t->loc), subject, t->loc));
  typedef struct Case {
    KlToken *kw;
    KlLoc loc;
    Pat *pat;
    KlNode *guard;
    KlNodeList body;
  } Case;
  Case *cases = NULL;
  int ncases = 0, capcases = 0;
  while (!accept(p, KL_TOK_DEDENT)) {
    KlToken *c = expect(p, KL_TOK_NAME);
    if (strcmp(c->str, "case")) unsupported(p, c->loc, KL_KILN010, "syntax in a match statement");
    if (ncases == capcases) {
      capcases = capcases ? capcases * 2 : 8;
      Case *more = kl_alloc(p->ctx, sizeof(Case) * (size_t)capcases);
      if (ncases) memcpy(more, cases, sizeof(Case) * (size_t)ncases);
      cases = more;
    }
    Case *k = &cases[ncases++];
    k->kw = c;
    k->loc = peek(p)->loc;
    k->pat = case_patterns(p);
    k->guard = accept(p, KL_TOK_KW_IF) ? named_test(p) : NULL;
    expect(p, KL_TOK_COLON);
    enter(p);
    k->body = block(p);
    leave(p);
  }
  if (ncases > 1) { /* a flag says a case matched */
    m.done = kl_fmt(p->ctx, "$m%d_done", m.id);
    vec_push(p, out, set_flag(&m, m.done, false, t->loc));
  }
  /* CPython gives every case a copy of the subject but the last one (not
   * counting a trailing `case _`), whose pattern consumes it */
  const bool has_default = ncases > 1 && cases[ncases - 1].pat->kind == PAT_WILD;
  for (int i = 0; i < ncases; i++) {
    Case *k = &cases[i];
    m.case_loc = k->loc;
    m.guard = k->guard;
    m.body = k->body;
    m.consume = i == ncases - 1 - has_default;
    m.ncaptured = 0;
    m.line310 = m.case_loc.line;
    Vec code = {0};
    gen(&m, todo(&m, k->pat, s, NULL, todo(&m, NULL, NULL, NULL, NULL)), &code);
    vec_push(p, &code, drop_hidden(&m, m.consume, m.case_loc)); /* what a failed case extracted */
    if (i == 0 || !m.done) {
      for (int j = 0; j < code.len; j++) vec_push(p, out, code.items[j]);
    } else {
      KlNode *not = new_node(p, KL_N_NOT, k->kw->loc);
      not->a = hidden_name(&m, m.done, k->kw->loc);
      vec_push(p, out, if_node(&m, not, &code));
    }
  }
  KlNode *tr = new_node(p, KL_N_TRY, t->loc);
  tr->op = 1; /* emit.c's cleanup_stmt */
  tr->body = to_list(&code_all);
  Vec fin = {0};
  vec_push(p, &fin, drop_hidden(&m, true, t->loc));
  tr->kw = to_list(&fin);
  vec_push(p, stmts_out, tr);
}

static void stmt(Parser *p, Vec *out) {
  KlToken *t = peek(p);
  switch (t->kind) {
  case KL_TOK_KW_IF:
    enter(p);
    vec_push(p, out, if_stmt(p));
    leave(p);
    return;
  case KL_TOK_KW_WHILE:
  case KL_TOK_KW_FOR:
    enter(p);
    vec_push(p, out, loop_stmt(p));
    leave(p);
    return;
  case KL_TOK_KW_DEF: vec_push(p, out, nested_def(p)); return;
  case KL_TOK_KW_CLASS: vec_push(p, out, nested_def(p)); return;
  case KL_TOK_KW_TRY:
    enter(p);
    vec_push(p, out, try_stmt(p));
    leave(p);
    return;
  case KL_TOK_KW_WITH:
    enter(p);
    vec_push(p, out, with_stmt(p));
    leave(p);
    return;
  case KL_TOK_KW_ASYNC: unsupported(p, t->loc, KL_KILN010, "async");
  case KL_TOK_AT: vec_push(p, out, nested_def(p)); return;
  case KL_TOK_NAME:
    if (at_match_stmt(p)) { /* `match` is a soft keyword */
      enter(p);
      match_stmt(p, out);
      leave(p);
      return;
    }
    simple_stmt(p, out);
    return;
  default: simple_stmt(p, out); return;
  }
}

/* block = simple_stmt | NEWLINE INDENT stmt+ DEDENT */
static KlNodeList block(Parser *p) {
  Vec v = {0};
  if (!accept(p, KL_TOK_NEWLINE)) {
    simple_stmt(p, &v);
    return to_list(&v);
  }
  expect(p, KL_TOK_INDENT);
  while (!accept(p, KL_TOK_DEDENT)) {
    if (at(p, KL_TOK_EOF)) unexpected(p);
    stmt(p, &v);
  }
  return to_list(&v);
}

/* ---- skipping what is not compiled ---- */

/* Skips the rest of a (possibly compound) statement that starts at p->pos:
 * up to its NEWLINE, then any indented block and `elif/else/except/finally`
 * continuation clauses at the same level. */
static void skip_statement(Parser *p) {
  for (;;) {
    while (!at(p, KL_TOK_NEWLINE) && !at(p, KL_TOK_EOF) && !at(p, KL_TOK_INDENT) && !at(p, KL_TOK_DEDENT))
      next(p);
    accept(p, KL_TOK_NEWLINE);
    if (at(p, KL_TOK_INDENT)) {
      int depth = 0;
      do {
        if (at(p, KL_TOK_INDENT)) depth++;
        else if (at(p, KL_TOK_DEDENT)) depth--;
        next(p);
      } while (depth > 0 && !at(p, KL_TOK_EOF));
    }
    KlTokKind k = peek(p)->kind;
    if (k != KL_TOK_KW_ELIF && k != KL_TOK_KW_ELSE && k != KL_TOK_KW_EXCEPT && k != KL_TOK_KW_FINALLY) return;
  }
}

/* ---- module level ---- */

static KlGlobal *add_global(Parser *p, const char *name, KlLoc loc) {
  KlModule *m = p->mod;
  KlGlobal *g = kl_find_global(m, name);
  if (g) return g;
  if (m->nglobals == m->capglobals) {
    int cap = m->capglobals ? m->capglobals * 2 : 16;
    KlGlobal *gs = kl_alloc(p->ctx, sizeof(KlGlobal) * (size_t)cap);
    if (m->nglobals) memcpy(gs, m->globals, sizeof(KlGlobal) * (size_t)m->nglobals);
    m->globals = gs;
    m->capglobals = cap;
  }
  g = &m->globals[m->nglobals++];
  g->name = kl_strdup(p->ctx, name);
  g->loc = loc;
  return g;
}

/* A module-level rebinding of a name makes it dynamic: forget any import. */
static void bind_global(Parser *p, const char *name, KlLoc loc, const char *dotted) {
  KlGlobal *g = add_global(p, name, loc);
  g->nbind++;
  if (!dotted && !p->guardable_bind) g->unguardable = true;
  if (g->dotted || g->is_func || g->assigned) {
    if (!g->dotted || !dotted || strcmp(g->dotted, dotted)) g->dotted = NULL;
    g->assigned = true;
    g->is_func = false;
    return;
  }
  g->dotted = dotted;
  g->assigned = dotted == NULL;
}

/* The names of every `global a, b` statement among tokens [from, to): code
 * kiln leaves to CPython (a class body, a nested def's block, a function
 * left as Python) may rebind them, so they are module names kiln cannot
 * resolve ahead of time. */
static void bind_global_statements(Parser *p, int from, int to) {
  for (int i = from; i < to; i++) {
    if (p->toks[i].kind != KL_TOK_KW_GLOBAL) continue;
    for (int j = i + 1; j < to && p->toks[j].kind == KL_TOK_NAME; j += 2) {
      bind_global(p, p->toks[j].str, p->toks[j].loc, NULL);
      if (j + 1 >= to || p->toks[j + 1].kind != KL_TOK_COMMA) break;
    }
  }
}

/* dotted_name = NAME ("." NAME)* */
static char *dotted_name(Parser *p) {
  KlBuf b = {0};
  KlToken *t = expect(p, KL_TOK_NAME);
  kl_buf_puts(&b, t->str);
  while (at(p, KL_TOK_DOT) && peek2(p)->kind == KL_TOK_NAME) {
    next(p);
    kl_buf_puts(&b, ".");
    kl_buf_puts(&b, next(p)->str);
  }
  char *s = kl_strndup(p->ctx, b.data, b.len);
  kl_buf_free(&b);
  return s;
}

/* import_stmt = "import" dotted ["as" NAME] ("," ...)*
 *             | "from" dotted "import" NAME ["as" NAME] ("," ...)* */
static void import_stmt(Parser *p) {
  KlToken *t = next(p);
  if (t->kind == KL_TOK_KW_IMPORT) {
    do {
      KlLoc loc = peek(p)->loc;
      char *path = dotted_name(p);
      if (accept(p, KL_TOK_KW_AS)) {
        KlToken *as = expect(p, KL_TOK_NAME);
        bind_global(p, as->str, as->loc, path);
      } else {
        char *dot = strchr(path, '.');
        char *top = dot ? kl_strndup(p->ctx, path, (size_t)(dot - path)) : path;
        bind_global(p, top, loc, top);
      }
    } while (accept(p, KL_TOK_COMMA));
  } else {
    if (at(p, KL_TOK_DOT) || at(p, KL_TOK_ELLIPSIS)) unexpected(p); /* relative import: dynamic */
    char *path = dotted_name(p);
    expect(p, KL_TOK_KW_IMPORT);
    if (at(p, KL_TOK_STAR)) {
      p->mod->star_import = true;
      next(p);
      return;
    }
    bool paren = accept(p, KL_TOK_LPAREN);
    do {
      if (paren && at(p, KL_TOK_RPAREN)) break;
      KlToken *name = expect(p, KL_TOK_NAME);
      KlToken *as = name;
      if (accept(p, KL_TOK_KW_AS)) as = expect(p, KL_TOK_NAME);
      bind_global(p, as->str, as->loc, kl_fmt(p->ctx, "%s.%s", path, name->str));
    } while (accept(p, KL_TOK_COMMA));
    if (paren) expect(p, KL_TOK_RPAREN);
  }
  expect(p, KL_TOK_NEWLINE);
}

/* An attribute store at module level, `torch.backends.cudnn.benchmark = v`:
 * recorded by spelling (root name + attribute path) so that resolve.c can
 * drop what it would resolve through that path, without making the root
 * (here every torch.* call) dynamic. */
static void note_attr_store(Parser *p, int j, int to) {
  KlBuf b = {0};
  kl_buf_puts(&b, p->toks[j].str);
  int k = j + 1;
  for (; k + 1 < to && p->toks[k].kind == KL_TOK_DOT && p->toks[k + 1].kind == KL_TOK_NAME; k += 2) {
    kl_buf_puts(&b, ".");
    kl_buf_puts(&b, p->toks[k + 1].str);
  }
  /* `a.b[i] = v` or `a.b(c).d = v` changes no binding of a.b itself */
  KlTokKind nk = k < to ? p->toks[k].kind : KL_TOK_ASSIGN;
  bool seen = false;
  for (int i = 0; i < p->mod->nattr_stores && !seen; i++)
    seen = !strcmp(p->mod->attr_stores[i], b.data ? b.data : "");
  if (nk != KL_TOK_LBRACKET && nk != KL_TOK_LPAREN && !seen) {
    KlModule *m = p->mod;
    if (m->nattr_stores == m->capattr_stores) {
      int cap = m->capattr_stores ? m->capattr_stores * 2 : 8;
      const char **a = kl_alloc(p->ctx, sizeof(char *) * (size_t)cap);
      if (m->nattr_stores) memcpy(a, m->attr_stores, sizeof(char *) * (size_t)m->nattr_stores);
      m->attr_stores = a;
      m->capattr_stores = cap;
    }
    m->attr_stores[m->nattr_stores++] = kl_strndup(p->ctx, b.data ? b.data : "", b.len);
  }
  kl_buf_free(&b);
}

/* The names an assignment target list [from, to) binds: plain names, also
 * inside (...) / [...] unpacking (when bind_names). `a.b = v` and `a[i] = v`
 * bind nothing (the former is noted as an attribute store), and names inside
 * a subscript or call (`a[i]`, `f(x).y`) are read, not bound. */
static void scan_targets(Parser *p, int from, int to, bool bind_names) {
  enum { MAXD = 64 };
  bool trailer[MAXD]; /* per open bracket: a subscript or call (else a display) */
  int depth = 0, in_trailer = 0;
  for (int j = from; j < to; j++) {
    KlToken *t = &p->toks[j];
    KlTokKind prev = j > from ? p->toks[j - 1].kind : KL_TOK_NEWLINE;
    switch (t->kind) {
    case KL_TOK_LPAREN: case KL_TOK_LBRACKET: case KL_TOK_LBRACE: {
      bool tr = prev == KL_TOK_NAME || prev == KL_TOK_RPAREN || prev == KL_TOK_RBRACKET || prev == KL_TOK_STRING;
      if (depth < MAXD) trailer[depth] = tr;
      in_trailer += tr;
      depth++;
      break;
    }
    case KL_TOK_RPAREN: case KL_TOK_RBRACKET: case KL_TOK_RBRACE:
      if (depth > 0 && --depth < MAXD) in_trailer -= trailer[depth];
      break;
    case KL_TOK_NAME: {
      if (in_trailer > 0 || prev == KL_TOK_DOT) break;
      KlTokKind nk = j + 1 < to ? p->toks[j + 1].kind : KL_TOK_ASSIGN;
      if (nk == KL_TOK_DOT) note_attr_store(p, j, to);
      else if (nk != KL_TOK_LBRACKET && nk != KL_TOK_LPAREN && bind_names) bind_global(p, t->str, t->loc, NULL);
      break;
    }
    default: break;
    }
  }
}

static void bind_targets(Parser *p, int from, int to) { scan_targets(p, from, to, true); }

static bool is_augassign(KlTokKind k) { return k >= KL_TOK_PLUSEQ && k <= KL_TOK_DSTAREQ; }

static void add_import_bind(Parser *p, const char *name, const char *path) {
  KlModule *m = p->mod;
  if (m->nimport_binds + 2 > m->capimport_binds) {
    int cap = m->capimport_binds ? m->capimport_binds * 2 : 16;
    const char **a = kl_alloc(p->ctx, sizeof(char *) * (size_t)cap);
    if (m->nimport_binds) memcpy(a, m->import_binds, sizeof(char *) * (size_t)m->nimport_binds);
    m->import_binds = a;
    m->capimport_binds = cap;
  }
  m->import_binds[m->nimport_binds++] = name;
  m->import_binds[m->nimport_binds++] = path;
}

/* The dotted name at tokens [*i, ...) ("a.b.c"), *i moved past it; NULL if
 * none starts there. */
static const char *token_dotted(Parser *p, int *i) {
  if (*i >= p->ntoks || p->toks[*i].kind != KL_TOK_NAME) return NULL;
  KlBuf b = {0};
  kl_buf_puts(&b, p->toks[(*i)++].str);
  while (*i + 1 < p->ntoks && p->toks[*i].kind == KL_TOK_DOT && p->toks[*i + 1].kind == KL_TOK_NAME) {
    kl_buf_puts(&b, ".");
    kl_buf_puts(&b, p->toks[*i + 1].str);
    *i += 2;
  }
  const char *s = kl_strndup(p->ctx, b.data, b.len);
  kl_buf_free(&b);
  return s;
}

/* Every name an import statement anywhere binds, with the path it binds
 * (`import a.b` binds a to a, `import a.b as c` c to a.b, `from a import b
 * as c` c to a.b): resolve.c maps a store through a function's local
 * import (`import torch` then `torch.relu = f`) to the path it stores over.
 * Relative and star imports bind no known path. */
static void note_import_names(Parser *p) {
  for (int i = 0; i < p->ntoks; i++) {
    KlTokKind k = p->toks[i].kind;
    if (k == KL_TOK_KW_IMPORT && (i == 0 || p->toks[i - 1].kind != KL_TOK_NAME)) { /* not `from a import` */
      int j = i + 1;
      for (;;) {
        const char *path = token_dotted(p, &j);
        if (!path) break;
        if (j + 1 < p->ntoks && p->toks[j].kind == KL_TOK_KW_AS && p->toks[j + 1].kind == KL_TOK_NAME) {
          add_import_bind(p, p->toks[j + 1].str, path);
          j += 2;
        } else {
          const char *dot = strchr(path, '.');
          const char *top = dot ? kl_strndup(p->ctx, path, (size_t)(dot - path)) : path;
          add_import_bind(p, top, top);
        }
        if (j >= p->ntoks || p->toks[j].kind != KL_TOK_COMMA) break;
        j++;
      }
    } else if (k == KL_TOK_KW_FROM) {
      int j = i + 1;
      const char *path = token_dotted(p, &j);
      if (!path || j >= p->ntoks || p->toks[j].kind != KL_TOK_KW_IMPORT) continue; /* relative, or `yield from` */
      j++;
      if (j < p->ntoks && p->toks[j].kind == KL_TOK_LPAREN) j++;
      while (j < p->ntoks && p->toks[j].kind == KL_TOK_NAME) {
        const char *item = p->toks[j++].str, *as = item;
        if (j + 1 < p->ntoks && p->toks[j].kind == KL_TOK_KW_AS && p->toks[j + 1].kind == KL_TOK_NAME) {
          as = p->toks[j + 1].str;
          j += 2;
        }
        add_import_bind(p, as, kl_fmt(p->ctx, "%s.%s", path, item));
        if (j >= p->ntoks || p->toks[j].kind != KL_TOK_COMMA) break;
        j++;
      }
    }
  }
}

/* Where the targets after the del, for or as keyword at kw end (before
 * to): at the end of the statement, the `in`, or the next `,` / `:` / `)`
 * at the keyword's bracket depth (`with a as b, c as d:`). */
static int targets_end(Parser *p, int kw, int to) {
  KlTokKind k = p->toks[kw].kind;
  int end = kw + 1;
  for (int d = 0; end < to; end++) {
    KlTokKind e = p->toks[end].kind;
    if (d == 0 && (e == KL_TOK_NEWLINE || e == KL_TOK_SEMI || e == KL_TOK_EOF || e == KL_TOK_COLON)) break;
    if (d == 0 && k == KL_TOK_KW_FOR && e == KL_TOK_KW_IN) break;
    if (d == 0 && k == KL_TOK_KW_AS && (e == KL_TOK_COMMA || bracket_step(e) < 0)) break;
    d += bracket_step(e);
    if (d < 0) break;
  }
  return end;
}

/* Every attribute store in the source, in any scope (`torch.relu = f` in a
 * function, a method, a nested def): code kiln compiles and code it leaves
 * to CPython alike may replace what a path denotes, so resolve.c drops what
 * it would resolve through a path stored over anywhere in the module (the
 * root taken as the module's global of that name and as whatever any
 * import binds it to; a store whose root is neither changes nothing).
 * Targets are found by tokens: those of `=` and
 * augmented assignments, `del`, `for ... in`, `with ... as`, and an
 * annotated `a.b: T`. */
static void note_attr_stores_everywhere(Parser *p) {
  int stmt = 0, depth = 0;
  for (int i = 0; i < p->ntoks; i++) {
    KlTokKind k = p->toks[i].kind;
    depth += bracket_step(k);
    if (depth < 0) depth = 0;
    if (depth > 0) continue;
    if (k == KL_TOK_NEWLINE || k == KL_TOK_INDENT || k == KL_TOK_DEDENT || k == KL_TOK_SEMI) {
      stmt = i + 1;
    } else if (k == KL_TOK_COLON) {
      /* `a.b: T [= v]`: the statement so far is one dotted name */
      bool dotted = i - stmt >= 3 && p->toks[stmt].kind == KL_TOK_NAME;
      for (int j = stmt + 1; dotted && j < i; j += 2)
        dotted = j + 1 < i && p->toks[j].kind == KL_TOK_DOT && p->toks[j + 1].kind == KL_TOK_NAME;
      if (dotted) note_attr_store(p, stmt, i);
      stmt = i + 1;
    } else if (k == KL_TOK_ASSIGN || is_augassign(k)) {
      scan_targets(p, stmt, i, false);
      stmt = i + 1;
    }
  }
  for (int i = 0; i < p->ntoks; i++) {
    KlTokKind k = p->toks[i].kind;
    if (k == KL_TOK_KW_DEL || k == KL_TOK_KW_FOR || k == KL_TOK_KW_AS)
      scan_targets(p, i + 1, targets_end(p, i, p->ntoks), false);
  }
}

/* Token i may be in the patterns of a `case` line starting at line_start (a
 * soft keyword: not `case = 1`, `case.x = 1`, `case: int`; `case(x)` may be
 * a call: taking its names as bound only makes them dynamic). */
static bool case_pattern(Parser *p, int line_start, int i) {
  const KlToken *c = &p->toks[line_start];
  if (i <= line_start || c->kind != KL_TOK_NAME || strcmp(c->str, "case")) return false;
  KlTokKind k = p->toks[line_start + 1].kind;
  if (k == KL_TOK_ASSIGN || k == KL_TOK_DOT || k == KL_TOK_COLON || k == KL_TOK_NEWLINE || is_augassign(k)) return false;
  for (int j = line_start + 1; j < i; j++)
    if (p->toks[j].kind == KL_TOK_KW_IF) return false; /* the guard's names are read */
  return true;
}

/* Names a skipped module-level statement may bind: the targets of `=`,
 * augmented and annotated assignments (bind_targets), names after def,
 * class, as, global, import and in for-targets, and walrus targets. Other
 * names (uses, calls like float("inf"), annotations) are not bindings.
 * Imports, and bindings inside an `except` handler's block, leave a name
 * guardable (`try: import torch` / `except ImportError: torch = None`). */
static void note_names(Parser *p, int from, int to) {
  /* a class body binds names in the class, not the module: only the class
   * name, and what its methods declare global */
  if (from + 1 < to && p->toks[from].kind == KL_TOK_KW_CLASS && p->toks[from + 1].kind == KL_TOK_NAME) {
    bind_global(p, p->toks[from + 1].str, p->toks[from + 1].loc, NULL);
    bind_global_statements(p, from + 2, to);
    return;
  }
  int depth = 0, line_start = from;
  int target_end = -1; /* an annotated assignment's target ends here (`x: int = 3`) */
  bool in_for = false, in_import = false;
  int level = 0, handler_level = -1; /* block nesting; the open `except` clause's, or -1 */
  for (int i = from; i < to; i++) {
    KlToken *t = &p->toks[i];
    KlTokKind prev = i > from ? p->toks[i - 1].kind : KL_TOK_NEWLINE;
    if (t->kind == KL_TOK_INDENT) level++;
    else if (t->kind == KL_TOK_DEDENT) level--;
    else if (prev == KL_TOK_NEWLINE || prev == KL_TOK_INDENT || prev == KL_TOK_DEDENT) {
      /* a statement at the handler's level or outside it ends the handler */
      if (handler_level >= 0 && level <= handler_level) handler_level = -1;
      if (t->kind == KL_TOK_KW_EXCEPT && handler_level < 0) handler_level = level;
    }
    p->guardable_bind = handler_level >= 0;
    switch (t->kind) {
    case KL_TOK_LPAREN: case KL_TOK_LBRACKET:
      if (prev == KL_TOK_KW_AS) { /* `with c as (a, b):` binds a and b */
        int end = i + 1;
        for (int d = 1; end < to && d > 0; end++) d += bracket_step(p->toks[end].kind);
        bind_targets(p, i, end);
      }
      depth++;
      break;
    case KL_TOK_LBRACE: depth++; break;
    case KL_TOK_RPAREN: case KL_TOK_RBRACKET: case KL_TOK_RBRACE: depth--; break;
    case KL_TOK_COLON:
      if (depth != 0) break;
      /* `NAME ...:` with no `=` or lambda before it is an annotation, not a
       * compound statement's colon (those start with a keyword) */
      if (target_end < 0 && line_start < i && p->toks[line_start].kind == KL_TOK_NAME) {
        bool target = true;
        for (int j = line_start; j < i && target; j++)
          target = p->toks[j].kind != KL_TOK_ASSIGN && p->toks[j].kind != KL_TOK_KW_LAMBDA &&
                   !is_augassign(p->toks[j].kind);
        if (target) {
          target_end = i;
          break;
        }
      }
      line_start = i + 1;
      in_for = in_import = false;
      target_end = -1;
      break;
    case KL_TOK_NEWLINE: case KL_TOK_INDENT: case KL_TOK_DEDENT: case KL_TOK_SEMI:
      line_start = i + 1;
      in_for = in_import = false;
      target_end = -1;
      break;
    case KL_TOK_KW_FOR: in_for = depth == 0; break; /* a comprehension's names are its own */
    case KL_TOK_KW_IN: in_for = false; break;
    case KL_TOK_KW_IMPORT: in_import = true; break;
    case KL_TOK_ASSIGN:
      if (depth == 0) bind_targets(p, line_start, target_end >= 0 ? target_end : i);
      break;
    case KL_TOK_KW_DEL: /* `del a, b[i], c.d`: unbinds a (and stores over c.d) as `a = ...` binds it */
      bind_targets(p, i + 1, targets_end(p, i, to));
      break;
    case KL_TOK_NAME: {
      KlTokKind nk = i + 1 < to ? p->toks[i + 1].kind : KL_TOK_EOF;
      bool import_name = in_import && nk != KL_TOK_KW_AS && prev != KL_TOK_DOT;
      bool bound = prev == KL_TOK_KW_DEF || prev == KL_TOK_KW_CLASS || prev == KL_TOK_KW_AS ||
                   nk == KL_TOK_WALRUS || (in_for && prev != KL_TOK_DOT) || import_name;
      bool declared = prev == KL_TOK_KW_GLOBAL; /* a function's `global a, b`: it may bind a after the module ran */
      if (prev == KL_TOK_COMMA) {
        for (int j = i - 1; j >= line_start; j--) {
          if (p->toks[j].kind == KL_TOK_KW_GLOBAL) declared = true;
          if (p->toks[j].kind != KL_TOK_COMMA && p->toks[j].kind != KL_TOK_NAME) break;
        }
      }
      if (case_pattern(p, line_start, i) && prev != KL_TOK_DOT && nk != KL_TOK_DOT && nk != KL_TOK_LPAREN &&
          nk != KL_TOK_ASSIGN)
        bound = true; /* a capture (or `_`, or a mapping's key: binding more only makes names dynamic) */
      p->guardable_bind = !declared && (handler_level >= 0 || import_name || (prev == KL_TOK_KW_AS && in_import));
      if (bound || declared) bind_global(p, t->str, t->loc, NULL);
      break;
    }
    default:
      if (is_augassign(t->kind) && depth == 0) bind_targets(p, line_start, i);
      break;
    }
  }
  p->guardable_bind = false;
}

/* params = param ("," param)* ; param = NAME [":" test] ["=" test] | "*" | "/" | "*" NAME | "**" NAME
 * (*args and **kwargs go last, where CPython's co_varnames has them) */
static void params(Parser *p, KlFunc *f) {
  KlParam tmp[256], star[2];
  int n = 0, nstar = 0;
  bool kwonly = false, seen_star = false, seen_dstar = false;
  while (!at(p, KL_TOK_RPAREN)) {
    KlToken *t = peek(p);
    /* one `*`, one `**`, nothing after `**`: CPython's SyntaxErrors (kilnc has no CPython to check) */
    if (seen_dstar || (t->kind == KL_TOK_STAR && seen_star)) unexpected(p);
    seen_star |= t->kind == KL_TOK_STAR;
    seen_dstar |= t->kind == KL_TOK_DSTAR;
    if (t->kind == KL_TOK_SLASH) {
      next(p);
      f->nposonly = n;
    } else if (t->kind == KL_TOK_STAR || t->kind == KL_TOK_DSTAR) {
      next(p);
      kwonly = true;
      if (t->kind == KL_TOK_STAR && !at(p, KL_TOK_NAME)) goto next_param; /* `*,` */
      KlToken *name = expect(p, KL_TOK_NAME);
      KlParam *prm = &star[nstar++];
      *prm = (KlParam){.name = name->str, .loc = name->loc, .kwonly = true, .star = t->kind == KL_TOK_STAR ? 1 : 2};
      if (accept(p, KL_TOK_COLON)) {
        if (at(p, KL_TOK_STAR)) unexpected(p); /* `*args: *Ts` */
        prm->annotation = annotation(p);
      }
    } else {
      KlToken *name = expect(p, KL_TOK_NAME);
      if (n == 256) unsupported(p, name->loc, KL_KILN011, "more than 256 parameters");
      KlParam *prm = &tmp[n++];
      *prm = (KlParam){.name = name->str, .loc = name->loc, .kwonly = kwonly};
      if (accept(p, KL_TOK_COLON)) prm->annotation = annotation(p);
      if (accept(p, KL_TOK_ASSIGN)) prm->dflt = test(p);
    }
  next_param:
    if (!accept(p, KL_TOK_COMMA)) break;
  }
  expect(p, KL_TOK_RPAREN);
  if (n + nstar > 256) unsupported(p, peek(p)->loc, KL_KILN011, "more than 256 parameters");
  f->params = kl_alloc(p->ctx, sizeof(KlParam) * (size_t)(n + nstar ? n + nstar : 1));
  memcpy(f->params, tmp, sizeof(KlParam) * (size_t)n);
  memcpy(f->params + n, star, sizeof(KlParam) * (size_t)nstar);
  f->nparams = n + nstar;
  f->nstar = nstar;
  f->nposparams = 0;
  for (int i = 0; i < n; i++)
    if (!tmp[i].kwonly) f->nposparams++;
}

/* Is the decorator expression kiln's own (`kiln.compile`, or `compile` imported from kiln)? */
static bool is_kiln_decorator(Parser *p, int from, int to) {
  KlBuf b = {0};
  for (int i = from; i < to; i++) {
    KlToken *t = &p->toks[i];
    if (t->kind == KL_TOK_NAME) kl_buf_puts(&b, t->str);
    else if (t->kind == KL_TOK_DOT) kl_buf_puts(&b, ".");
    else { kl_buf_puts(&b, "?"); }
  }
  bool ok = false;
  if (b.data) {
    const char *s = b.data;
    const char *dot = strchr(s, '.');
    if (dot) {
      KlGlobal *g = kl_find_global(p->mod, kl_strndup(p->ctx, s, (size_t)(dot - s)));
      ok = g && g->dotted && !strcmp(g->dotted, "kiln") && !strcmp(dot, ".compile");
    } else {
      KlGlobal *g = kl_find_global(p->mod, s);
      ok = g && g->dotted && !strcmp(g->dotted, "kiln.compile");
    }
  }
  kl_buf_free(&b);
  return ok;
}

/* A decorator that may be one of torch's grad guards, `@a.b`, `@a.b()`,
 * `@a.b(True)` or `@a.b(mode=True)`: its dotted spelling (*mode_arg set
 * for the last two), else NULL. Whether the spelling denotes
 * torch.no_grad or torch.inference_mode is decided once the module's names
 * are known (resolve.c). */
static const char *guard_decorator(Parser *p, int from, int to, bool *mode_arg) {
  static const KlTokKind mode_true[] = {KL_TOK_LPAREN, KL_TOK_KW_TRUE, KL_TOK_RPAREN};
  static const KlTokKind mode_kw_true[] = {KL_TOK_LPAREN, KL_TOK_NAME, KL_TOK_ASSIGN, KL_TOK_KW_TRUE, KL_TOK_RPAREN};
  int call_len = 0; /* the tokens of a call's parentheses at the end, if any */
  if (to - from >= 3 && p->toks[to - 2].kind == KL_TOK_LPAREN && p->toks[to - 1].kind == KL_TOK_RPAREN) call_len = 2;
  *mode_arg = false;
  if (!call_len && to - from >= 4) {
    const KlToken *t = &p->toks[to - 3];
    *mode_arg = t[0].kind == mode_true[0] && t[1].kind == mode_true[1] && t[2].kind == mode_true[2];
    if (*mode_arg) call_len = 3;
  }
  if (!call_len && to - from >= 6) {
    const KlToken *t = &p->toks[to - 5];
    *mode_arg = !strcmp(t[1].str ? t[1].str : "", "mode");
    for (int i = 0; i < 5 && *mode_arg; i++) *mode_arg = t[i].kind == mode_kw_true[i];
    if (*mode_arg) call_len = 5;
  }
  to -= call_len;
  KlBuf b = {0};
  bool ok = to > from;
  for (int i = from; i < to && ok; i++) {
    KlToken *t = &p->toks[i];
    if (t->kind == KL_TOK_NAME && (i - from) % 2 == 0) kl_buf_puts(&b, t->str);
    else if (t->kind == KL_TOK_DOT && (i - from) % 2 == 1) kl_buf_puts(&b, ".");
    else ok = false;
  }
  const char *spelling = ok && b.data ? kl_strdup(p->ctx, b.data) : NULL;
  kl_buf_free(&b);
  return spelling;
}

/* funcdef = decorator* "def" NAME "(" params ")" ["->" test] ":" block */
static void funcdef(Parser *p) {
  int start = p->pos;
  KlFunc *f = kl_alloc(p->ctx, sizeof *f);
  /* volatile: read after the setjmp below */
  volatile bool other_decorator = false;
  volatile int deco_line = 0, deco_col = 0;
  const char *spelling;
  bool mode_arg;
  while (at(p, KL_TOK_AT)) {
    KlToken *at_tok = next(p);
    int from = p->pos;
    while (!at(p, KL_TOK_NEWLINE) && !at(p, KL_TOK_EOF)) next(p);
    if (is_kiln_decorator(p, from, p->pos)) f->kiln_decorated = true;
    else if (!f->guard_spelling && (spelling = guard_decorator(p, from, p->pos, &mode_arg)) != NULL) {
      f->guard_spelling = spelling;
      f->guard_mode_arg = mode_arg;
      f->guard_loc = at_tok->loc;
    } else if (!other_decorator) {
      other_decorator = true;
      deco_line = at_tok->loc.line;
      deco_col = at_tok->loc.col;
    }
    accept(p, KL_TOK_NEWLINE);
  }
  volatile bool is_async = false;
  if (at(p, KL_TOK_KW_ASYNC) && peek2(p)->kind == KL_TOK_KW_DEF) {
    next(p);
    is_async = true;
  }
  if (!at(p, KL_TOK_KW_DEF)) {
    /* a decorated class or something else: skip it, note its names */
    int from = p->pos;
    skip_statement(p);
    note_names(p, from, p->pos);
    if (!p->nfkc_name) p->nfkc_name = nfkc_check(p, start, p->pos);
    return;
  }
  KlToken *def = next(p);
  KlToken *name = peek(p);
  if (name->kind != KL_TOK_NAME) {
    skip_statement(p);
    if (!p->nfkc_name) p->nfkc_name = nfkc_check(p, start, p->pos);
    return;
  }
  next(p);
  f->name = name->str;
  f->loc = def->loc;
  f->first_line = p->toks[start].loc.line;
  int header = p->pos;
  volatile int body_from = -1;
  jmp_buf bail;
  jmp_buf *saved = p->bail;
  p->bail = &bail;
  p->fn = f;
  p->depth = 0;
  p->loops = 0;
  p->lambda_bodies = 0;
  if (setjmp(bail) == 0) {
    if (is_async) unsupported(p, f->loc, KL_KILN010, "async function (coroutine)");
    if (other_decorator) unsupported(p, (KlLoc){deco_line, deco_col}, KL_KILN012, "decorator");
    expect(p, KL_TOK_LPAREN);
    params(p, f);
    if (accept(p, KL_TOK_ARROW)) f->returns = annotation(p);
    expect(p, KL_TOK_COLON);
    body_from = p->pos;
    f->body = block(p);
    /* left-associative chains (`a+b+...`, `x.a.b...`) are built by loops:
     * bound the depth of the finished tree as well */
    for (int i = 0; i < f->nparams; i++) check_depth(p, f->params[i].annotation, (KlNodeList){0});
    for (int i = 0; i < f->nparams; i++) check_depth(p, f->params[i].dflt, (KlNodeList){0});
    check_depth(p, f->returns, f->body);
  } else {
    p->depth = 0;
    p->loops = 0;
    /* Skip the rest of the function: back to the header, then the block. */
    p->pos = header;
    int depth = 0;
    while (!at(p, KL_TOK_EOF)) {
      KlTokKind k = peek(p)->kind;
      if (bracket_step(k)) depth += bracket_step(k);
      else if (k == KL_TOK_COLON && depth <= 0) break;
      else if (k == KL_TOK_NEWLINE) break;
      next(p);
    }
    accept(p, KL_TOK_COLON);
    int body_start = p->pos;
    body_from = body_start;
    skip_statement(p);
    /* `global x` in a function left as Python may rebind module names */
    bind_global_statements(p, body_start, p->pos);
  }
  p->bail = saved;
  p->fn = NULL;
  /* decorators, name, parameters and annotations: module scope */
  KlToken *odd = nfkc_check(p, start, body_from);
  if (odd && !p->nfkc_name) p->nfkc_name = odd;
  if ((odd = nfkc_check(p, body_from, p->pos))) mark_python(p, f, odd);
  /* Register the function (a redefinition replaces the earlier one). */
  KlGlobal *g = add_global(p, f->name, f->loc);
  g->nbind++;
  g->unguardable = true;
  if (g->dotted || g->assigned || g->is_func) {
    g->dotted = NULL;
    g->assigned = true;
  }
  g->is_func = !g->assigned;
  KlModule *m = p->mod;
  KlFunc **fs = kl_alloc(p->ctx, sizeof(KlFunc *) * (size_t)(m->nfuncs + 1));
  if (m->nfuncs) memcpy(fs, m->funcs, sizeof(KlFunc *) * (size_t)m->nfuncs);
  f->index = m->nfuncs;
  fs[m->nfuncs++] = f;
  m->funcs = fs;
}

/* `Mat = kt.TensorF32Cpu2D` (a whole statement): Mat may stand for that
 * path in annotations, if nothing else binds Mat (types.c checks). */
static void note_alias(Parser *p, int from, int to) {
  int k = from + 2;
  if (to - from < 3 || p->toks[from].kind != KL_TOK_NAME || p->toks[from + 1].kind != KL_TOK_ASSIGN ||
      p->toks[k].kind != KL_TOK_NAME)
    return;
  KlBuf b = {0};
  kl_buf_puts(&b, p->toks[k].str);
  for (k++; k + 1 < to && p->toks[k].kind == KL_TOK_DOT && p->toks[k + 1].kind == KL_TOK_NAME; k += 2) {
    kl_buf_puts(&b, ".");
    kl_buf_puts(&b, p->toks[k + 1].str);
  }
  if (k == to || p->toks[k].kind == KL_TOK_NEWLINE || p->toks[k].kind == KL_TOK_EOF) {
    KlGlobal *g = kl_find_global(p->mod, p->toks[from].str);
    if (g && g->nbind == 1) g->alias = kl_strndup(p->ctx, b.data ? b.data : "", b.len);
  }
  kl_buf_free(&b);
}

/* Top-level `NAME = ...` statements: note the bound names. */
static void module_stmt(Parser *p) {
  KlToken *t = peek(p);
  if (t->kind == KL_TOK_KW_IMPORT || t->kind == KL_TOK_KW_FROM) {
    int from = p->pos;
    jmp_buf bail;
    jmp_buf *saved = p->bail;
    p->bail = &bail;
    if (setjmp(bail) == 0) {
      import_stmt(p);
    } else {
      p->pos = from;
      skip_statement(p);
      note_names(p, from, p->pos);
    }
    p->bail = saved;
    if (!p->nfkc_name) p->nfkc_name = nfkc_check(p, from, p->pos);
    return;
  }
  if (t->kind == KL_TOK_KW_DEF || t->kind == KL_TOK_AT ||
      (t->kind == KL_TOK_KW_ASYNC && peek2(p)->kind == KL_TOK_KW_DEF)) {
    funcdef(p);
    return;
  }
  int from = p->pos;
  skip_statement(p);
  note_names(p, from, p->pos);
  note_alias(p, from, p->pos);
  if (!p->nfkc_name) p->nfkc_name = nfkc_check(p, from, p->pos);
}

/* Names through which code can bind a module global that no statement shows. */
static bool binds_names_unseen(const char *name) {
  static const char *const dyn[] = {"globals", "vars", "locals", "exec", "setattr", "__dict__",
                                    "builtins", "__builtins__", "__import__", "importlib", NULL};
  for (int i = 0; dyn[i]; i++)
    if (!strcmp(name, dyn[i])) return true;
  return false;
}

/* A name every import of which binds one path, bound otherwise only by
 * module-level code in `except` handlers (`try: import torch` / `except
 * ImportError: torch = None`), resolves to that path as if imported once,
 * guarded: the runtime keeps each function that resolved through it as
 * Python unless, once the module has run, the global is the object at the
 * path. Nothing later rebinds it unseen: a function's `global` makes it
 * unguardable. kiln.compile binds while the module still runs, so there
 * the name stays dynamic. All imports anywhere count (import_binds), local
 * ones too: a superset, only ever fewer guards. */
static void guard_conditional_imports(Parser *p) {
  KlModule *m = p->mod;
  if (p->ctx->flags & KL_FLAG_BIND_GLOBALS) return;
  for (int i = 0; i < m->nglobals; i++) {
    KlGlobal *g = &m->globals[i];
    if (g->dotted || g->unguardable || g->is_func) continue;
    const char *path = NULL;
    bool one = true;
    for (int j = 0; j + 1 < m->nimport_binds && one; j += 2) {
      if (strcmp(m->import_binds[j], g->name)) continue;
      one = !path || !strcmp(path, m->import_binds[j + 1]);
      path = m->import_binds[j + 1];
    }
    if (path && one) {
      g->dotted = path;
      g->guarded = true;
    }
  }
}

KlModule *kl_parse(KlCtx *ctx, KlToken *toks, int ntoks) {
  Parser p = {.ctx = ctx, .toks = toks, .ntoks = ntoks};
  p.mod = kl_alloc(ctx, sizeof(KlModule));
  ctx->module = p.mod;
  for (int i = 0; i < ntoks && !p.mod->dynamic_names; i++)
    p.mod->dynamic_names = toks[i].kind == KL_TOK_NAME && binds_names_unseen(toks[i].str);
  note_attr_stores_everywhere(&p);
  note_import_names(&p);
  while (!at(&p, KL_TOK_EOF)) {
    if (accept(&p, KL_TOK_NEWLINE)) continue;
    if (at(&p, KL_TOK_INDENT) || at(&p, KL_TOK_DEDENT)) {
      next(&p); /* cannot happen with a consistent lexer; be robust */
      continue;
    }
    module_stmt(&p);
  }
  guard_conditional_imports(&p);
  if (p.nfkc_name)
    for (int i = 0; i < p.mod->nfuncs; i++) mark_python(&p, p.mod->funcs[i], p.nfkc_name);
  return p.mod;
}

/* ---- AST dump (golden tests) ---- */

static const char *const node_names[] = {
#define X(name) #name,
    KL_NODES(X)
#undef X
};

static void dump_node(KlBuf *out, KlNode *n, int indent);

static void dump_list(KlBuf *out, const char *label, KlNodeList l, int indent) {
  if (!l.len) return;
  kl_buf_printf(out, "%*s%s:\n", indent, "", label);
  for (int i = 0; i < l.len; i++) dump_node(out, l.items[i], indent + 2);
}

static void dump_node(KlBuf *out, KlNode *n, int indent) {
  if (!n) {
    kl_buf_printf(out, "%*s-\n", indent, "");
    return;
  }
  kl_buf_printf(out, "%*s%s %d:%d", indent, "", node_names[n->kind], n->loc.line, n->loc.col);
  switch (n->kind) {
  case KL_N_NAME: case KL_N_ATTR: case KL_N_KEYWORD: kl_buf_printf(out, " %s", n->name ? n->name : "**"); break;
  case KL_N_STARRED: kl_buf_puts(out, n->op == 2 ? " **" : " *"); break;
  case KL_N_IMPORTFROM: kl_buf_printf(out, " %s level %d", n->name ? n->name : "-", n->op); break;
  case KL_N_INT:
    if (n->big) kl_buf_printf(out, " big:%s", n->str);
    else kl_buf_printf(out, " %lld", (long long)n->ival);
    break;
  case KL_N_FLOAT: case KL_N_IMAG: kl_buf_printf(out, " %.17g", n->fval); break;
  case KL_N_STR: case KL_N_BYTES:
    kl_buf_puts(out, " \"");
    kl_buf_json_string(out, n->str, n->slen);
    kl_buf_puts(out, "\"");
    break;
  case KL_N_BINOP: case KL_N_AUGASSIGN: kl_buf_printf(out, " %s", kl_binop_text[n->op]); break;
  case KL_N_UNARY: kl_buf_printf(out, " %s", n->op == KL_UOP_NEG ? "-" : n->op == KL_UOP_POS ? "+" : "~"); break;
  case KL_N_BOOLOP: kl_buf_printf(out, " %s", n->op ? "or" : "and"); break;
  case KL_N_FORMAT:
    if (n->op) kl_buf_printf(out, " !%c", n->op);
    break;
  case KL_N_COMP: kl_buf_printf(out, " %s", kl_comp_text[n->op]); break;
  case KL_N_MATCHOP: {
    static const char *const ops[] = {"sequence", "mapping", "len", "keys", "class", "found", "index", "rest"};
    kl_buf_printf(out, " %s", n->op >= 0 && n->op < (int)(sizeof ops / sizeof ops[0]) ? ops[n->op] : "?");
    if (n->op == KL_MATCH_CLASS || n->op == KL_MATCH_INDEX)
      kl_buf_printf(out, " %lld", (long long)n->ival);
    break;
  }
  case KL_N_DEL:
    if (n->op) kl_buf_puts(out, " (hidden, bound or not)");
    break;
  case KL_N_LAMBDA:
    kl_buf_printf(out, " %s col %d (", n->lambda->name ? n->lambda->name : "lambda", n->lambda->col);
    for (int i = 0; i < n->lambda->nnames; i++) kl_buf_printf(out, "%s%s", i ? ", " : "", n->lambda->names[i]);
    kl_buf_puts(out, ")");
    break;
  case KL_N_COMPARE:
    for (int i = 0; i < n->list.len - 1; i++) kl_buf_printf(out, " %s", kl_cmpop_text[n->cmpops[i]]);
    break;
  default: break;
  }
  kl_buf_puts(out, "\n");
  if (n->a) dump_node(out, n->a, indent + 2);
  if (n->b) dump_node(out, n->b, indent + 2);
  if (n->c) dump_node(out, n->c, indent + 2);
  dump_list(out, "items", n->list, indent + 2);
  dump_list(out, n->kind == KL_N_TRY ? "finally" : "keywords", n->kw, indent + 2);
  dump_list(out, "body", n->body, indent + 2);
  dump_list(out, "else", n->orelse, indent + 2);
  if (n->lambda && n->lambda->body) {
    kl_buf_printf(out, "%*sbody (CPython's)\n", indent + 2, "");
    dump_node(out, n->lambda->body, indent + 4);
  }
  if (n->lambda && n->lambda->reads.len) {
    kl_buf_printf(out, "%*sreads (CPython's body):", indent + 2, "");
    for (int i = 0; i < n->lambda->reads.len; i++) kl_buf_printf(out, " %s", n->lambda->reads.items[i]->name);
    kl_buf_puts(out, "\n");
  }
}

void kl_dump_module(KlCtx *ctx, KlModule *m, KlBuf *out) {
  (void)ctx;
  for (int i = 0; i < m->nglobals; i++) {
    KlGlobal *g = &m->globals[i];
    kl_buf_printf(out, "global %s%s%s%s\n", g->name, g->dotted ? " = " : "", g->dotted ? g->dotted : "",
                  g->is_func ? " (def)" : g->guarded ? " (guarded)" : g->assigned ? " (assigned)" : "");
  }
  for (int i = 0; i < m->nfuncs; i++) {
    KlFunc *f = m->funcs[i];
    kl_buf_printf(out, "def %s %d:%d", f->name, f->loc.line, f->loc.col);
    if (f->unsupported) {
      kl_buf_printf(out, " python: %s at %d:%d\n", f->why, f->why_loc.line, f->why_loc.col);
      continue;
    }
    kl_buf_puts(out, "\n");
    if (f->guard_spelling) /* resolve.c decides whether it is a torch grad guard */
      kl_buf_printf(out, "  decorator %s%s at %d:%d\n", f->guard_spelling, f->guard_mode_arg ? "(mode=True)" : "",
                    f->guard_loc.line, f->guard_loc.col);
    for (int j = 0; j < f->nparams; j++) {
      KlParam *prm = &f->params[j];
      kl_buf_printf(out, "  param %s%s%s%s\n", prm->star == 1 ? "*" : prm->star == 2 ? "**" : "", prm->name,
                    prm->kwonly && !prm->star ? " kwonly" : "", j < f->nposonly ? " posonly" : "");
      if (prm->annotation) dump_node(out, prm->annotation, 4);
      if (prm->dflt) dump_node(out, prm->dflt, 4);
    }
    if (f->returns) {
      kl_buf_puts(out, "  returns\n");
      dump_node(out, f->returns, 4);
    }
    dump_list(out, "body", f->body, 2);
  }
}
