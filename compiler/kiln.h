/* kiln.h — the one internal header of the kiln compiler.
 *
 * Pipeline (one file per stage):
 *   lex.c      source bytes  -> tokens
 *   parse.c    tokens        -> AST (module, functions, statements, expressions)
 *   resolve.c  AST           -> names bound to locals / globals / imports / builtins
 *   types.c    resolved AST  -> a type for every expression and local
 *   claim.c    typed AST     -> every site decided (scalar / claimed / rejected / not covered)
 *   emit.c     decided AST   -> C source of one CPython extension module
 *   report.c   decided AST   -> JSON report
 *   diag.c     diagnostics, the code table, explain texts
 *   util.c     arena, strings, buffers
 * Sections below are named after the file that defines them. */
#ifndef KILN_H
#define KILN_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KILN_VERSION "0.1.0"

typedef struct KlCtx KlCtx;
typedef struct KlNode KlNode;
typedef struct KlFunc KlFunc;

/* ------------------------------------------------------------------ util.c */

typedef struct KlArenaBlock KlArenaBlock;
typedef struct {
  KlArenaBlock *head;
} KlArena;

void *kl_alloc(KlCtx *ctx, size_t size); /* zeroed, freed with the context */
char *kl_strndup(KlCtx *ctx, const char *s, size_t n);
char *kl_strdup(KlCtx *ctx, const char *s);
char *kl_fmt(KlCtx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kl_arena_free(KlArena *arena);

/* A growable byte buffer (malloc-backed, so it can outlive the arena). */
typedef struct {
  char *data;
  size_t len, cap;
  bool oom;
} KlBuf;
void kl_buf_put(KlBuf *b, const char *s, size_t n);
void kl_buf_puts(KlBuf *b, const char *s);
void kl_buf_printf(KlBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kl_buf_vprintf(KlBuf *b, const char *fmt, va_list ap);
void kl_buf_free(KlBuf *b);
/* A buffer freed with the context even when a kl_fatal unwinds past its owner. */
KlBuf *kl_tracked_buf(KlCtx *ctx);
void kl_free_tracked(KlCtx *ctx);
/* Appends s as the body of a C string literal: every byte that is not a
 * plain letter, digit, space or safe punctuation becomes an octal escape,
 * so no source text can end the literal, a comment or a line. */
void kl_buf_c_string(KlBuf *b, const char *s, size_t n);
/* Appends s as the body of a JSON string. */
void kl_buf_json_string(KlBuf *b, const char *s, size_t n);

#define kl_unreachable() kl_internal_error(__FILE__, __LINE__)
_Noreturn void kl_internal_error(const char *file, int line);

/* ------------------------------------------------------------------ diag.c */

/* Every diagnostic code, with a one-line title. The explain texts live in
 * diag.c. Codes are stable: never renumber, only append. */
#define KL_DIAG_CODES(X)                                                         \
  X(KILN001, "syntax error")                                                     \
  X(KILN002, "invalid source encoding or bytes")                                 \
  X(KILN003, "inconsistent indentation")                                         \
  X(KILN010, "construct not supported by the compiler; function left as Python") \
  X(KILN011, "parameter form not supported; function left as Python")            \
  X(KILN012, "decorator not supported; function left as Python")                 \
  X(KILN020, "name is not defined")                                              \
  X(KILN021, "annotation names an unknown type; parameter is a Python object")   \
  X(KILN030, "integer literal does not fit in int64")                            \
  X(KILN040, "two plugins claim the same site")                                  \
  X(KILN041, "plugin lowering does not match its claim")                         \
  X(KILN042, "plugin API version mismatch")                                      \
  X(KILN050, "internal compiler error")                                          \
  X(KILN_TEST_001, "test plugin rejected the site")                              \
  X(KILN_TORCH_001, "torch: linear needs positional x (rank 2 or 1), w (2), b (1)") \
  X(KILN_TORCH_002, "torch: activation method takes no arguments, rank 1 or 2")  \
  X(KILN_TORCH_003, "torch: matmul needs a matrix operand and no keywords")      \
  X(KILN_TORCH_004, "torch: + needs ranks 1+1, 2+2, 2+1 or 1+2")                 \
  X(KILN_TORCH_005, "torch: mean/sum is native over one literal dim of rank 2 only") \
  X(KILN_TORCH_006, "torch: softmax needs the literal last dim and no other arguments") \
  X(KILN_TORCH_007, "torch: cat / stack need a display of 1-16 tensors of one rank and a literal dim") \
  X(KILN_TORCH_008, "torch: view / reshape / flatten / squeeze / unsqueeze need rank 1 or 2 results and literal dims; copies no arguments") \
  X(KILN_TORCH_009, "torch: indexing needs ints and slices of ints giving rank 1 or 2") \
  X(KILN_TORCH_010, "torch: tensor operation outside the proven surface")        \
  X(KILN_TF_001, "tensorflow: matmul needs two rank-2 tensors, no transpose_a")  \
  X(KILN_TF_002, "tensorflow: relu / leaky_relu need one rank-1 or rank-2 tensor, no keywords but alpha") \
  X(KILN_TF_003, "tensorflow: add, maximum, clip_by_value and the like need ranks 1+1, 2+2, 2+1 or 1+2 (bounds numbers), no keywords") \
  X(KILN_TF_004, "tensorflow: reduce_mean/sum needs rank 2 and a literal axis")     \
  X(KILN_TF_005, "tensorflow: sigmoid / tanh / math functions need one rank-1 or rank-2 tensor, no keywords") \
  X(KILN_TF_006, "tensorflow: binary + needs ranks 1+1, 2+2, 2+1 or 1+2")        \
  X(KILN_TF_007, "tensorflow: concat / stack need a display of 1-16 tensors of one rank and a literal axis") \
  X(KILN_TF_008, "tensorflow: reshape / squeeze / expand_dims need rank 1 or 2 results and literal axes") \
  X(KILN_TF_009, "tensorflow: indexing needs ints and slices of ints giving rank 1 or 2") \
  X(KILN_TF_010, "tensorflow: tensor operation outside the proven surface")

typedef enum {
#define X(code, title) KL_##code,
  KL_DIAG_CODES(X)
#undef X
  KL_NUM_CODES
} KlCode;

const char *kl_code_name(KlCode code);  /* "KILN001", "KILN-TORCH-001" */
const char *kl_code_title(KlCode code);
const char *kl_code_explain(KlCode code);
bool kl_code_lookup(const char *name, KlCode *out);

typedef enum { KL_SEV_ERROR, KL_SEV_WARNING, KL_SEV_NOTE } KlSeverity;

typedef struct KlLoc {
  int line, col; /* 1-based; col counts code points */
} KlLoc;

typedef struct KlDiag {
  struct KlDiag *next;
  KlSeverity sev;
  KlCode code;
  KlLoc loc;
  char *msg;
} KlDiag;

/* Records a diagnostic. Errors make the compilation fail. */
void kl_diag(KlCtx *ctx, KlSeverity sev, KlCode code, KlLoc loc, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Records an error and abandons the compilation (longjmp to kl_compile). */
_Noreturn void kl_fatal(KlCtx *ctx, KlCode code, KlLoc loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Renders all diagnostics rustc-style: file:line:col: error[CODE]: msg, line, caret. */
void kl_render_diags(KlCtx *ctx, KlBuf *out);

/* ------------------------------------------------------------------ lex.c */

#define KL_TOKENS(X)                                                              \
  X(EOF, "end of file") X(NEWLINE, "newline") X(INDENT, "indent")                 \
  X(DEDENT, "dedent") X(NAME, "name") X(INT, "integer") X(FLOAT, "float")         \
  X(IMAG, "imaginary number") X(STRING, "string") X(BYTES, "bytes")               \
  X(FSTRING, "f-string")                                                          \
  X(LPAREN, "(") X(RPAREN, ")") X(LBRACKET, "[") X(RBRACKET, "]")                 \
  X(LBRACE, "{") X(RBRACE, "}") X(COMMA, ",") X(COLON, ":") X(SEMI, ";")          \
  X(DOT, ".") X(ELLIPSIS, "...") X(AT, "@") X(ASSIGN, "=") X(ARROW, "->")         \
  X(WALRUS, ":=") X(PLUS, "+") X(MINUS, "-") X(STAR, "*") X(SLASH, "/")           \
  X(DSLASH, "//") X(PERCENT, "%") X(DSTAR, "**") X(LSHIFT, "<<")                  \
  X(RSHIFT, ">>") X(AMP, "&") X(PIPE, "|") X(CARET, "^") X(TILDE, "~")            \
  X(LT, "<") X(GT, ">") X(LE, "<=") X(GE, ">=") X(EQ, "==") X(NE, "!=")           \
  X(PLUSEQ, "+=") X(MINUSEQ, "-=") X(STAREQ, "*=") X(SLASHEQ, "/=")               \
  X(DSLASHEQ, "//=") X(PERCENTEQ, "%=") X(ATEQ, "@=") X(AMPEQ, "&=")              \
  X(PIPEEQ, "|=") X(CARETEQ, "^=") X(LSHIFTEQ, "<<=") X(RSHIFTEQ, ">>=")          \
  X(DSTAREQ, "**=")                                                               \
  X(KW_FALSE, "False") X(KW_NONE, "None") X(KW_TRUE, "True") X(KW_AND, "and")     \
  X(KW_AS, "as") X(KW_ASSERT, "assert") X(KW_ASYNC, "async")                      \
  X(KW_AWAIT, "await") X(KW_BREAK, "break") X(KW_CLASS, "class")                  \
  X(KW_CONTINUE, "continue") X(KW_DEF, "def") X(KW_DEL, "del")                    \
  X(KW_ELIF, "elif") X(KW_ELSE, "else") X(KW_EXCEPT, "except")                    \
  X(KW_FINALLY, "finally") X(KW_FOR, "for") X(KW_FROM, "from")                    \
  X(KW_GLOBAL, "global") X(KW_IF, "if") X(KW_IMPORT, "import") X(KW_IN, "in")     \
  X(KW_IS, "is") X(KW_LAMBDA, "lambda") X(KW_NONLOCAL, "nonlocal")                \
  X(KW_NOT, "not") X(KW_OR, "or") X(KW_PASS, "pass") X(KW_RAISE, "raise")         \
  X(KW_RETURN, "return") X(KW_TRY, "try") X(KW_WHILE, "while")                    \
  X(KW_WITH, "with") X(KW_YIELD, "yield")

typedef enum {
#define X(name, text) KL_TOK_##name,
  KL_TOKENS(X)
#undef X
  KL_NUM_TOKS
} KlTokKind;

/* An f-string's parts (lex.c): decoded literal text, or a replacement
 * field whose expression the parser lexes from the source range it names. */
typedef struct KlFParts KlFParts;
typedef struct KlFPart {
  const char *lit;          /* literal text (UTF-8), or NULL for a field */
  size_t litlen;
  size_t expr_from, expr_to; /* a field: its expression's source offsets */
  KlLoc expr_loc;            /* and the location of expr_from */
  int conv;                  /* 's', 'r', 'a' or 0 (`{x=}` alone means 'r') */
  KlFParts *spec;            /* the format spec's parts, or NULL */
} KlFPart;
struct KlFParts {
  KlFPart *items;
  int len;
};

typedef struct KlToken {
  KlTokKind kind;
  KlLoc loc;
  const char *start; /* raw text in the source buffer */
  size_t len;
  /* Decoded payload. */
  int64_t ival;  /* INT: value when it fits int64 */
  bool big;      /* INT: does not fit int64 (text in start/len) */
  double fval;   /* FLOAT, IMAG */
  char *str;     /* STRING: UTF-8 contents; BYTES: raw bytes; NAME: the name (NFKC not applied) */
  size_t slen;
  KlFParts *fparts; /* FSTRING: its parts, or NULL for a form kiln does not parse */
} KlToken;

const char *kl_tok_text(KlTokKind kind); /* "(" or "name" */
/* Tokenizes the whole source. On a lexical error records the diagnostic and
 * calls kl_fatal. The array ends with one KL_TOK_EOF. */
KlToken *kl_lex(KlCtx *ctx, int *ntoks);
/* Tokenizes the source bytes [from, to) as text inside brackets (no
 * NEWLINE/INDENT), `at` being the location of `from`: an f-string field's
 * expression. Errors as kl_lex. */
KlToken *kl_lex_range(KlCtx *ctx, size_t from, size_t to, KlLoc at, int *ntoks);
/* One token per line, for golden tests: "LINE:COL KIND payload". */
void kl_dump_tokens(const KlToken *toks, int ntoks, KlBuf *out);

/* ------------------------------------------------------------------ types.c (type table) */

/* Types are small integers. Tensor types are registered by plugins. */
typedef int KlType;
enum {
  KL_T_NONE_YET = 0, /* bottom: no assignment seen yet */
  KL_T_INT,          /* int64 */
  KL_T_FLOAT,        /* double */
  KL_T_BOOL,
  KL_T_OBJECT,       /* any Python object, fallback semantics */
  KL_T_FIRST_TENSOR
};
#define KL_MAX_TYPES 32

typedef struct KlTypeInfo {
  const char *key;       /* "int", "kiln-torch/tensor-f32-cpu-2d" */
  int plugin;            /* index of the owning plugin, -1 for core types */
  int rank;              /* tensors only */
  const char *annotation; /* dotted annotation spelling, e.g. "kiln.torch.TensorF32Cpu2D" */
} KlTypeInfo;

bool kl_is_tensor(KlCtx *ctx, KlType t);
bool kl_is_scalar(KlType t); /* int, float, bool */
const char *kl_type_name(KlCtx *ctx, KlType t);
KlType kl_join(KlType a, KlType b);

/* ------------------------------------------------------------------ parse.c */

#define KL_NODES(X)                                                               \
  /* expressions */                                                               \
  X(NAME) X(INT) X(FLOAT) X(STR) X(BYTES) X(TRUE) X(FALSE) X(NONE) X(ELLIPSIS)    \
  X(IMAG) X(TUPLE) X(LIST) X(DICT) X(SET) X(ATTR) X(SUBSCRIPT) X(SLICE) X(CALL)   \
  X(BINOP) X(UNARY) X(NOT) X(BOOLOP) X(COMPARE) X(IFEXP) X(KEYWORD)               \
  X(JOINEDSTR) X(FORMAT) X(COMP) X(COMPFOR) X(STARRED) X(NAMEDEXPR) X(MATCHOP)   \
  /* statements */                                                                \
  X(EXPR_STMT) X(ASSIGN) X(AUGASSIGN) X(ANNASSIGN) X(IF) X(WHILE) X(FOR)          \
  X(BREAK) X(CONTINUE) X(RETURN) X(PASS) X(RAISE) X(ASSERT) X(DEL) X(WITH)         \
  X(TRY) X(EXCEPT) X(LAMBDA) X(IMPORT) X(IMPORTFROM)

typedef enum {
#define X(name) KL_N_##name,
  KL_NODES(X)
#undef X
  KL_NUM_NODES
} KlNodeKind;

/* What a MATCHOP node (op) does: parse.c turns a match statement into
 * ordinary statements and these, the CPython instructions of its patterns
 * (emit.c). a is the subject (a hidden local). */
typedef enum {
  KL_MATCH_SEQUENCE, /* bool: type(a) is a sequence (MATCH_SEQUENCE) */
  KL_MATCH_MAPPING,  /* bool: type(a) is a mapping (MATCH_MAPPING) */
  KL_MATCH_LEN,      /* int: len(a) (GET_LEN) */
  KL_MATCH_KEYS,     /* the values of a's keys in the tuple b, or None when one is missing (MATCH_KEYS) */
  KL_MATCH_CLASS,    /* a's attributes for class b's ival positional and kw's keyword sub-patterns, or None
                        when a is not an instance or lacks one (MATCH_CLASS) */
  KL_MATCH_FOUND,    /* bool: a (what KEYS or CLASS gave) is not None */
  KL_MATCH_INDEX,    /* a[ival], or a[len(a) + ival] when ival < 0 (after a `*_`) */
  KL_MATCH_REST      /* a dict of a's items but the keys in the tuple b (a mapping's **rest) */
} KlMatchOp;

/* What a comprehension (COMP node, its op) makes. A generator expression is
 * compiled only as the one argument of a consumer that takes all its items
 * at once or stops at the first deciding one, which kiln then does itself
 * (resolve.c); anywhere else the function stays Python. */
#define KL_COMP_KINDS(X)                                                          \
  X(LIST, "list")           /* [x for ...], list(x for ...) */                    \
  X(SET, "set")             /* {x for ...}, set(x for ...) */                     \
  X(DICT, "dict")           /* {k: v for ...} */                                  \
  X(TUPLE, "tuple")         /* tuple(x for ...) */                                \
  X(SORTED, "sorted")       /* sorted(x for ...[, key=][, reverse=]): those in kw */ \
  X(JOIN, "join")           /* "sep".join(x for ...): the separator in c */       \
  X(ANY, "any")             /* any(x for ...) */                                  \
  X(ALL, "all")             /* all(x for ...) */                                  \
  X(SUM, "sum")             /* sum(x for ...[, start]): start in c */             \
  X(MIN, "min")             /* min(x for ...[, key=][, default=]): those in kw */ \
  X(MAX, "max")             /* max(x for ...[, key=][, default=]) */              \
  X(NEXT, "next")           /* next(x for ...[, default]): the default in c */     \
  X(GENERATOR, "generator") /* (x for ...) not consumed as above */

typedef enum {
#define X(name, text) KL_COMP_##name,
  KL_COMP_KINDS(X)
#undef X
} KlCompKind;
extern const char *const kl_comp_text[];

/* Binary and unary operators, in one list so the parser, the type rules,
 * the emitter and the report name them the same way. */
#define KL_BINOPS(X)                                                              \
  X(ADD, "+", "PyNumber_Add", "PyNumber_InPlaceAdd")                              \
  X(SUB, "-", "PyNumber_Subtract", "PyNumber_InPlaceSubtract")                    \
  X(MUL, "*", "PyNumber_Multiply", "PyNumber_InPlaceMultiply")                    \
  X(DIV, "/", "PyNumber_TrueDivide", "PyNumber_InPlaceTrueDivide")                \
  X(FLOORDIV, "//", "PyNumber_FloorDivide", "PyNumber_InPlaceFloorDivide")        \
  X(MOD, "%", "PyNumber_Remainder", "PyNumber_InPlaceRemainder")                  \
  X(POW, "**", "kr_power", "kr_inplace_power")                                    \
  X(MATMUL, "@", "PyNumber_MatrixMultiply", "PyNumber_InPlaceMatrixMultiply")     \
  X(LSHIFT, "<<", "PyNumber_Lshift", "PyNumber_InPlaceLshift")                    \
  X(RSHIFT, ">>", "PyNumber_Rshift", "PyNumber_InPlaceRshift")                    \
  X(BITAND, "&", "PyNumber_And", "PyNumber_InPlaceAnd")                           \
  X(BITOR, "|", "PyNumber_Or", "PyNumber_InPlaceOr")                              \
  X(BITXOR, "^", "PyNumber_Xor", "PyNumber_InPlaceXor")

typedef enum {
#define X(name, text, capi, capi_inplace) KL_OP_##name,
  KL_BINOPS(X)
#undef X
  KL_NUM_BINOPS
} KlBinOp;

typedef enum { KL_UOP_NEG, KL_UOP_POS, KL_UOP_INVERT } KlUnaryOp;
typedef enum { KL_CMP_LT, KL_CMP_LE, KL_CMP_GT, KL_CMP_GE, KL_CMP_EQ, KL_CMP_NE,
               KL_CMP_IS, KL_CMP_ISNOT, KL_CMP_IN, KL_CMP_NOTIN } KlCmpOp;

extern const char *const kl_binop_text[KL_NUM_BINOPS];
extern const char *const kl_cmpop_text[];

typedef struct KlNodeList {
  KlNode **items;
  int len;
} KlNodeList;

/* How a name is bound (resolve.c). */
typedef enum { KL_B_UNRESOLVED, KL_B_LOCAL, KL_B_GLOBAL, KL_B_BUILTIN } KlBinding;

/* Outcome of a site (claim.c). */
typedef enum {
  KL_SITE_NONE,       /* not a site (e.g. a literal) */
  KL_SITE_SCALAR,     /* native int/float/bool operation of the core */
  KL_SITE_CLAIMED,    /* a plugin lowers it natively */
  KL_SITE_REJECTED,   /* a plugin recognised it but it is outside the proven surface */
  KL_SITE_NOT_COVERED /* Python fallback */
} KlSiteOutcome;

typedef struct KlSiteInfo KlSiteInfo;

/* A lambda (LAMBDA node; its defaults are the node's list, its keyword-only
 * defaults KEYWORD nodes in kw). CPython compiles and runs the body; kiln
 * evaluates the defaults and makes the function from the code object
 * CPython compiled for it, found by position (runtime.c find_lambdas). */
typedef struct KlLambda {
  const char *name;   /* a nested def's or class's name, NULL for a lambda */
  bool is_class;      /* a nested class: its node's list and kw are the class's bases and keywords, its
                         code the class body's; kiln calls __build_class__ as CPython does */
  bool is_genexpr;    /* a generator expression kiln does not consume (resolve.c): its node's a is
                         the first iterable, evaluated here; the generator is the code called with its iterator */
  KlNode *body;       /* a lambda's (a generator expression's COMP, its first iterable NULL), parsed
                         only to see which names it reads: no stage walks it */
  KlNodeList reads;   /* a nested def's: a NAME node for every name its body mentions */
  const char **names; /* its parameters in co_varnames order: positional, keyword-only, *args, **kwargs */
  int nnames, npos, nkwonly;
  int *free_slots;    /* resolve.c: the function's variables it reads (cells), by name as CPython orders co_freevars */
  int nfree;
  int line;           /* its code's co_firstlineno: `lambda`'s, `def`'s, a generator expression's `(`'s
                         line, or a def's first decorator's */
  int col;            /* byte offset of `lambda`/`def`/`(` in its line: CPython's col_offset */
  int end_line;       /* the last line of its code (the report's python_bodies) */
} KlLambda;

struct KlNode {
  KlNodeKind kind;
  KlLoc loc;
  KlType type;      /* types.c: the type of this expression's value */
  /* payload */
  char *name;       /* NAME, ATTR (attribute), KEYWORD (arg name, NULL for **) */
  int64_t ival;     /* INT; WITH: the line of its `with` statement; MATCHOP: an index or count (KlMatchOp) */
  int line310;      /* MATCHOP: the line of its errors on 3.10 and 3.11 (parse.c's Match), 0: loc's */
  bool big;         /* INT beyond int64: kept as text in str */
  double fval;      /* FLOAT, IMAG */
  char *str;        /* STR, BYTES contents; INT big-literal text */
  size_t slen;
  int op;           /* KlBinOp / KlUnaryOp / BOOLOP: 0 and 1 or / AUGASSIGN op /
                       WITH: KL_GUARD_* (a torch guard kiln applies itself), 0 any other manager;
                       MATCHOP: a KlMatchOp; DEL: 1 drops a match statement's hidden locals, bound or not;
                       TRY: 1 a match statement's (its finally drops those hidden locals: emit.c cleanup_stmt) */
  KlNode *a, *b, *c; /* children: BINOP a op b; ATTR a.name; SUBSCRIPT a[b]; IFEXP b if a else c;
                        UNARY/NOT a; KEYWORD a=value; SLICE a:b:c; ASSIGN value=b; FOR target a, iter b;
                        RETURN a; IF/WHILE test a; AUGASSIGN target a, value b; RAISE a from b (a NULL: bare);
                        ASSERT a, msg b; ANNASSIGN target a, annotation c, value b;
                        WITH the context expression a (NULL once resolve.c made it a guard's op), `as` target b;
                        FORMAT (an f-string field) value a, spec b (a JOINEDSTR or NULL), op conversion;
                        COMP (a comprehension) element a (a dict's key), dict value b, op a KlCompKind,
                        JOIN's separator or SUM's start c, SORTED/MIN/MAX's keywords in kw (evaluated, like c,
                        after the first iterable); COMPFOR target a, iterable b;
                        EXCEPT (a handler) type a (NULL: bare `except:`), `as` name b;
                        NAMEDEXPR `a := b` (a the NAME, bound in the function even in a comprehension);
                        STARRED `*a` (a display's or call's item unpacked, or a target taking the rest),
                        op 2: `**a` in a dict display (the key of a pair whose value is a None placeholder);
                        IMPORT (`import a.b [as c], ...`): per item a KEYWORD in kw naming the module
                        (its op 1 with `as`) and the NAME bound in list;
                        IMPORTFROM (`from [.]a import b [as c], ...`): module name (NULL for `from . import`),
                        op the level, per item a KEYWORD in kw naming what is imported, the NAME bound in list;
                        MATCHOP subject a, keys or class b, a class pattern's keyword names as KEYWORDs in kw */
  KlNodeList list;   /* TUPLE/LIST/SET/DICT items (DICT: k0,v0,k1,v1..); CALL args; JOINEDSTR parts;
                        BOOLOP operands; COMPARE operands; ASSIGN targets; DEL targets;
                        COMP its COMPFOR clauses; COMPFOR its `if` conditions; TRY its EXCEPT handlers */
  KlNodeList kw;     /* CALL keywords (KEYWORD nodes); TRY its finally block */
  int *cmpops;       /* COMPARE: list.len-1 operators */
  KlNodeList body, orelse; /* IF, WHILE, FOR; WITH body; TRY body and else block; EXCEPT body */
  KlLambda *lambda;  /* LAMBDA */
  /* resolve.c */
  KlBinding binding;
  int slot;          /* LOCAL: index into func->locals; AUGASSIGN of a local: the slot read */
  int web;           /* resolve.c: definition id (stores) or a reaching one (loads) */
  bool maybe_unbound; /* resolve.c: a load some path reaches without a binding */
  int enclosing;      /* resolve.c: a load from a comprehension of a variable bound outside it:
                         1 through comprehensions only, 2 through a generator expression */
  bool consumed;      /* resolve.c: COMP made from a generator expression a consumer takes */
  KlNode **release[2]; /* resolve.c: a comprehension's target names in the order CPython releases
                          them at its end: [0] up to 3.11, [1] from 3.12 (nrelease of each) */
  int nrelease;
  const char *stored_to; /* resolve.c: a list/set/dict comprehension an assignment on its line
                            stores straight into this local (3.12's compiler then reorders its
                            restores), or NULL */
  int *clear;         /* resolve.c: a store's other slots of its variable, dead from it on */
  int nclear, nclear_cap;
  const char *dotted; /* expression statically denotes this module path / symbol,
                         e.g. "torch.nn.functional.linear" (NAME, ATTR) */
  /* claim.c */
  KlSiteInfo *site;
  int id;            /* unique per module, for emitted names */
  /* fuse.c */
  bool forwarded;    /* ASSIGN whose value is inlined into its single use */
};

typedef struct KlParam {
  char *name;
  KlLoc loc;
  KlNode *annotation; /* or NULL */
  KlNode *dflt;       /* default expression (evaluated by Python at def time) or NULL */
  bool kwonly;
  int star;           /* 1: *args (a tuple), 2: **kwargs (a dict); these come last in params */
  KlType type;        /* from the annotation */
  int slot;
} KlParam;

typedef struct KlLocal {
  char *name;
  KlType type;        /* types.c: join over every assignment (flow-insensitive) */
  bool is_param;
  bool comp;          /* a comprehension's variable: never found by name in the function */
  bool cell;          /* resolve.c: a lambda reads it, so it lives in a cell object (one slot, an object) */
  const char *static_path; /* resolve.c: every definition is a local import of this dotted path */
  KlNode *fwd;        /* fuse.c: the value expression this local stands for */
  int loads, stores;  /* fuse.c: how often it is read and written */
} KlLocal;

/* Decorators that set torch's autograd state around a compiled function. */
enum { KL_GUARD_NO_GRAD = 1, KL_GUARD_INFERENCE = 2 };

struct KlFunc {
  char *name;
  KlLoc loc;           /* the 'def' line */
  int first_line;      /* its statement's first line: its first decorator's, else loc's */
  KlParam *params;     /* named ones in CPython's co_varnames order (positional, keyword-only), then
                          *args, then **kwargs */
  int nparams, nposparams; /* all of them; the positional ones (the first nposonly positional-only) */
  int nposonly, nstar;
  KlNode *returns;     /* return annotation or NULL */
  KlNodeList body;
  const char **global_names; /* parse.c: declared `global`: module globals, never locals */
  int nglobal_names;
  bool kiln_decorated;
  int grad_guard;      /* KL_GUARD_*: @torch.no_grad() / @torch.inference_mode(), applied during calls */
  const char **import_guards; /* resolve.c: name, path pairs: the guarded globals it acts through */
  int nimport_guards;
  const char *guard_spelling; /* parse.c: the decorator that may be that guard (`a.b`), */
  bool guard_mode_arg;        /* called with mode=True, */
  KlLoc guard_loc;            /* at its '@'; resolve.c decides */
  /* Set when the function stays Python: which construct and where. */
  bool unsupported;
  KlCode why_code;
  char *why;
  KlLoc why_loc;
  /* resolve.c */
  KlLocal *locals;
  int nlocals, caplocals;
  int *comp_scope;     /* while resolving: slots of the comprehension variables in scope */
  int ncomp_scope, capcomp_scope;
  int comp_depth;      /* comprehensions being resolved around the current node */
  int comp_mark;       /* comp_scope[comp_mark..]: the innermost one's variables */
  int gen_mark;        /* the innermost generator expression's mark, or -1 */
  const char **genexp_names; /* resolve.c: names read in generator expressions (beyond their first
                                iterables): on CPython those of the function's are cells */
  int ngenexp_names;
  bool has_walrus;     /* resolve.c: a `:=` binds inside an expression (webs then follow and/or/if-else) */
  const char **walrus_names; /* the variables a := binds: a read of one takes its own reference (emit.c),
                                since a later operand of the same expression may rebind it */
  int nwalrus_names;
  KlType return_type;
  int index;
};

/* A module-level name the compiler can see statically. */
typedef struct KlGlobal {
  char *name;
  const char *dotted; /* for imports: the module or symbol path; NULL otherwise */
  bool is_func;       /* defined by a top-level def */
  bool assigned;      /* assigned by ordinary statements too */
  int nbind;          /* statements binding it (a def counts too) */
  const char *alias;  /* `NAME = a.b.c` as its only binding: that spelling */
  bool unguardable;   /* bound other than by an import outside an `except` handler of a module-level
                         statement (a def, an assignment, a function's `global`) */
  bool guarded;       /* dotted is its imports' one path (other module-level code may bind it) or its
                         alias's: it holds only if the global is that object once the module has run
                         (the runtime checks at install; parse.c guard_conditional_imports, resolve.c
                         resolve_path_aliases) */
  KlLoc loc;
} KlGlobal;

typedef struct KlModule {
  KlFunc **funcs;
  int nfuncs;
  KlGlobal *globals;
  int nglobals, capglobals;
  bool star_import;   /* `from x import *`: any name may be bound */
  bool dynamic_names; /* globals(), vars(), exec, setattr, builtins...: names may be bound unseen */
  const char **attr_stores; /* `root.a.b = v` anywhere, by spelling (parse.c); paths after resolve.c */
  int nattr_stores, capattr_stores;
  const char **import_binds; /* name, path, name, path...: what every import anywhere may bind (parse.c) */
  int nimport_binds, capimport_binds;
  const char **unknown; /* names already reported as KILN020 (resolve.c) */
  int nunknown, capunknown;
} KlModule;

/* Parses the tokens. Lexical and syntax errors are fatal; unsupported but
 * valid constructs inside a function mark that function unsupported. */
KlModule *kl_parse(KlCtx *ctx, KlToken *toks, int ntoks);
/* Debug dump of the AST (golden tests). */
void kl_dump_module(KlCtx *ctx, KlModule *m, KlBuf *out);

/* ------------------------------------------------------------------ resolve.c */

void kl_resolve(KlCtx *ctx, KlModule *m);
KlGlobal *kl_find_global(KlModule *m, const char *name);
/* "a.b.c" as the path it denotes through the import bound to `a` (its
 * dotted path + ".b.c"), or NULL; *root (if given) gets a's global or NULL. */
const char *kl_spelled_path(KlCtx *ctx, KlModule *m, const char *spelling, KlGlobal **root);
/* f acts on the static path of expression path (a claimed or scalar call's
 * callee, a grad guard): if its root is a guarded import, f gets its guard. */
void kl_note_import_guard(KlCtx *ctx, KlFunc *f, const KlNode *path);
/* The grad guard (KL_GUARD_*) torch's object at this path is, else 0. */
int kl_grad_guard_path(const char *path);
int kl_func_local(KlCtx *ctx, KlFunc *f, const char *name);
bool kl_declared_global(const KlFunc *f, const char *name); /* named by a `global` statement of f */ /* slot, adding it if new */
bool kl_is_native_builtin(KlModule *m, const char *name);

/* ------------------------------------------------------------------ types.c */

void kl_infer_types(KlCtx *ctx, KlModule *m);
KlType kl_annotation_type(KlCtx *ctx, KlNode *annotation);
bool kl_is_native_range(KlCtx *ctx, KlNode *call);      /* range(...) over int args */
/* `t.shape[k]`, t a native tensor and k an int literal naming one of its
 * dims (negative ones too): read from the tensor natively; *dim the dim. */
bool kl_is_tensor_dim(KlCtx *ctx, const KlNode *subscript, int *dim);
/* `t.ndim`, t a native tensor: its rank, an int the type proves. */
bool kl_is_tensor_ndim(KlCtx *ctx, const KlNode *attr);
bool kl_is_parallel_assign(KlNode *target, KlNode *value);
/* Does this call unpack arguments (`*a` or `**m`)? Then no rule sees it:
 * it is a plain Python call (emit.c unpacked_call). */
bool kl_call_unpacks(const KlNode *call); /* a, b = x, y */

/* ------------------------------------------------------------------ claim.c + plugin interface */

/* 2: KlLowered.operands holds five (F.layer_norm's)
 * 3: KlSite.seq_arg / seq_len / seq (a list or tuple display), KlLowered.ival
 * (KL_TOP_RESHAPE / SQUEEZE / UNSQUEEZE are new ops, not a new interface)
 * 4: KL_SK_SUBSCRIPT sites (a tensor indexed), KlSite.slices / slice_part / slice_step; KlSite.seq_arg
 *    also names a keyword display */
#define KL_PLUGIN_API_VERSION 4

typedef enum { KL_SK_CALL, KL_SK_METHOD, KL_SK_BINOP, KL_SK_COMPARE, KL_SK_UNARYOP, KL_SK_SUBSCRIPT } KlSiteKind;
extern const char *const kl_site_kind_text[];
extern const char *const kl_math_float_fns[];

typedef enum { KL_LIT_NONE_GIVEN, KL_LIT_INT, KL_LIT_BOOL, KL_LIT_FLOAT, KL_LIT_STR,
               KL_LIT_NONE, KL_LIT_DYNAMIC } KlLitKind;

typedef struct KlSiteKeyword {
  const char *name;
  KlLitKind lit;   /* literal value kind, KL_LIT_DYNAMIC when not a literal */
  int64_t ival;    /* INT, BOOL */
  double fval;
  const char *sval;
  KlType type;
} KlSiteKeyword;

#define KL_SITE_MAX_ARGS 8
#define KL_SITE_MAX_KW 8
#define KL_SITE_MAX_SEQ 16

/* What a plugin sees: pure metadata, no AST. */
typedef struct KlSite {
  KlSiteKind kind;
  const char *target;  /* CALL: dotted path ("torch.matmul") or NULL if unknown;
                          METHOD: method name; BINOP/COMPARE/UNARYOP: operator text */
  bool has_receiver;
  KlType receiver;     /* METHOD: type of the receiver */
  int nargs;           /* positional operands (BINOP: 2) */
  KlType args[KL_SITE_MAX_ARGS];
  KlLitKind arg_lit[KL_SITE_MAX_ARGS];  /* literal kind of each positional */
  int64_t arg_ival[KL_SITE_MAX_ARGS];
  int nkw;
  KlSiteKeyword kw[KL_SITE_MAX_KW];
  bool has_star_args;  /* *args or **kwargs present: never claimable */
  unsigned transposed; /* bit i: positional i is written `t.T` or `t.t()`, t a rank-2 tensor, and args[i] is t's
                          type; such sites go only to plugins with transposed_operands (claim.c) */
  int seq_arg;         /* the first positional written as a list or tuple display without `*x` (torch.cat's
                          tensors), else the first keyword so written (nargs + its index: tf.reshape's shape=),
                          -1: none; its length, and its first KL_SITE_MAX_SEQ elements' types */
  int seq_len;
  KlType seq[KL_SITE_MAX_SEQ];
  /* KL_SK_SUBSCRIPT (`x[i]`, `x[a:b, j]` read, x a native tensor; target "__getitem__", reported as a
     method): the receiver is x, the positionals its indexes (a tuple's elements, else the one index).
     Bit i of `slices`: positional i is a slice (args[i] KL_T_OBJECT), its start and stop of types
     slice_part[i][0..1] (KL_T_NONE_YET where absent or None), its step slice_step[i] (1 where absent
     or None; 0 where not a literal int) */
  unsigned slices;
  KlType slice_part[KL_SITE_MAX_ARGS][2];
  int64_t slice_step[KL_SITE_MAX_ARGS];
} KlSite;

/* Native tensor operations a plugin can lower to (the kiln IR vocabulary).
 * Operands are the site's receiver/positionals by index (receiver = 0 when
 * there is one). */
#define KL_TENSOR_OPS(X)                                                   \
  X(MATMUL, "matmul")       /* r = a @ b (2-D) */                            \
  X(LINEAR, "linear")       /* r = a @ b.T + c */                           \
  X(ADD, "add")             /* r = a + b broadcast, or one an int/float/bool */ \
  X(RELU, "relu") X(SIGMOID, "sigmoid") X(TANH, "tanh")                     \
  X(ROWSUM, "rowsum") X(ROWMEAN, "rowmean")                                \
  X(SUB, "sub") X(MUL, "mul") X(DIV, "div") /* as ADD */               \
  X(SOFTMAX, "softmax")     /* each row of a rank-2 tensor, or the vector */ \
  X(NEG, "neg")             /* r = -a */                                \
  X(ABS, "abs") X(SQRT, "sqrt") X(SQUARE, "square") X(EXP, "exp")          \
  X(SILU, "silu") X(LOG, "log") /* elementwise, as relu */ \
  X(LOG_SOFTMAX, "log_softmax") /* as SOFTMAX */ \
  X(RSQRT, "rsqrt")         /* elementwise, as relu */ \
  X(COLSUM, "colsum") X(COLMEAN, "colmean") /* over dim 0 of a rank-2 tensor */ \
  X(RELU6, "relu6") X(HARDTANH, "hardtanh") /* elementwise, as relu */ \
  X(CLAMP, "clamp")         /* min(hi, max(lo, a)): operands a, lo, hi (scalars; -1: absent) */ \
  X(CLAMP_ORDERED, "clamp_ordered") /* CLAMP, both bounds, lo > hi a ValueError first (F.hardtanh) */ \
  X(BIAS_ADD, "bias_add")   /* a[M,N] + b[N] as ADD, b exactly N long (tf.nn.bias_add) */ \
  X(LEAKY_RELU, "leaky_relu") /* a > 0 ? a : a * slope: operands a, slope (a scalar; -1: the framework's default) */ \
  X(GELU, "gelu") X(GELU_TANH, "gelu_tanh") /* elementwise, as relu: the erf form, the tanh form */ \
  X(MAXIMUM, "maximum") X(MINIMUM, "minimum") /* torch.maximum / minimum of two tensors, broadcast as ADD */ \
  X(LAYER_NORM, "layer_norm") /* F.layer_norm: operands a, shape (an object), weight, bias, eps (-1: absent) */ \
  X(NORMALIZE, "normalize") /* F.normalize over the last dim, p 2: operands a, eps (a scalar; -1: 1e-12) */ \
  X(CLIP_BY_VALUE, "clip_by_value") /* tf.clip_by_value: operands a, lo, hi (scalars): MAXIMUM(MINIMUM(a, hi), lo) */ \
  X(CAT, "cat")             /* torch.cat / tf.concat: operand the display (KlSite.seq_arg) of 1..KL_SITE_MAX_SEQ tensors \
                               of one rank, joined along dim KlLowered.ival (0 or 1) */ \
  X(STACK, "stack")         /* torch.stack / tf.stack: as CAT of rank-1 tensors, each a row (ival 0) or a column (1) */ \
  X(RESHAPE, "reshape")     /* x.view / x.reshape / torch.reshape / tf.reshape / flatten: operands a, then 1 or 2 native \
                               int sizes (one may be -1), or (KL_RESHAPE_SEQ) the sizes are the display KlSite.seq_arg; \
                               ival KL_RESHAPE_* flags */ \
  X(SQUEEZE, "squeeze")     /* rank 2 to 1: dim ival (0 or 1), which must have size 1 */ \
  X(COPY, "copy")           /* x.contiguous() / x.clone() / x.detach(): ival the runtime's KR_SHAPE_* (a copy, or x) */ \
  X(UNSQUEEZE, "unsqueeze") /* rank 1 to 2: a dim of size 1 inserted at ival (0 or 1) */ \
  X(INDEX, "index")         /* a[i], a[a:b, j] (KL_SK_SUBSCRIPT): operand a; the indexes are the subscript's */ \
  X(SIZE, "size")           /* an int: a.shape[d], operands a, d (a literal int naming one of a's dims) */ \
  X(NDIM, "ndim") X(NUMEL, "numel") /* ints: a's rank, its element count */

/* KL_TOP_RESHAPE's KlLowered.ival: eager's view (it refuses strides no view
 * can describe); the sizes are the display; flatten (no sizes: one dim);
 * the operand itself (a flatten of nothing, x.float(), x.cpu()). */
enum { KL_RESHAPE_VIEW = 1, KL_RESHAPE_SEQ = 2, KL_RESHAPE_FLATTEN = 4, KL_RESHAPE_SAME = 8 };

typedef enum {
#define X(name, text) KL_TOP_##name,
  KL_TENSOR_OPS(X)
#undef X
  KL_NUM_TOPS
} KlTensorOp;
extern const char *const kl_tensor_op_text[];

typedef enum { KL_CLAIM_NOT_COVERED, KL_CLAIM_CLAIMED, KL_CLAIM_REJECTED } KlClaimKind;

typedef struct KlClaim {
  KlClaimKind kind;
  const char *rule;    /* CLAIMED: rule id */
  KlType result;       /* CLAIMED: result type */
  KlCode code;         /* REJECTED: diagnostic code */
  const char *message; /* REJECTED: static message */
} KlClaim;

typedef struct KlLowered {
  KlTensorOp op;
  int operands[5];     /* indexes into the site's operand list: the receiver, the positionals,
                          then the keywords' values as written; -1: absent */
  int noperands;
  KlType result;
  int64_t ival;        /* a literal the op needs: CAT's and STACK's dim, counted from 0 */
} KlLowered;

typedef struct KlTypeDecl {
  const char *annotation; /* dotted spelling: "kiln.torch.TensorF32Cpu2D" */
  const char *key;        /* "kiln-torch/tensor-f32-cpu-2d" */
  int rank;
} KlTypeDecl;

typedef struct KlRuleRecord {
  const char *id, *form, *outcome;
  KlCode code;          /* KL_NUM_CODES when none */
  bool verified;        /* an end-to-end test compiles and runs it against eager */
} KlRuleRecord;

typedef struct KlPlugin {
  int api_version;               /* KL_PLUGIN_API_VERSION */
  const char *name;              /* "torch" */
  const char *framework;         /* runtime boundary: "torch", "tensorflow", "test" */
  const KlTypeDecl *types;       /* terminated by {NULL} */
  const char *const *coverage;   /* module prefixes: {"torch", NULL} */
  /* Pure function of the site. The plugin's own type ids are passed in
   * (types[i] registered as tids[i]) so it can recognise them. */
  KlClaim (*claim)(const KlSite *site, const KlType *tids);
  /* Re-validates the claim and describes the native op; false = drift. */
  bool (*lower)(const KlSite *site, const KlClaim *claim, const KlType *tids, KlLowered *out);
  const KlRuleRecord *rules;     /* terminated by {NULL} */
  bool transposed_operands;      /* understands KlSite.transposed (offered when a site is not claimed as written) */
} KlPlugin;

extern const KlPlugin kl_plugin_torch, kl_plugin_tensorflow, kl_plugin_test, kl_plugin_test_twin;

/* Positional arg i of a site as its claim reads it: `t` for a `t.T` or `t.t()` the
 * claim took transposed (KlSite.transposed), else arg itself. */
KlNode *kl_site_arg(const KlSiteInfo *s, int i, KlNode *arg);

struct KlSiteInfo {
  KlSiteOutcome outcome;
  KlSite meta;
  int plugin;          /* -1 for the core */
  KlClaim claim;
  KlLowered lowered;
  int conflict;        /* > 0: a second plugin (this index) also claimed it */
  bool drift;          /* lowering disagreed with the claim */
};

void kl_claim_sites(KlCtx *ctx, KlModule *m);
/* Site for an expression (claim.c decides; types.c calls it for result types). */
KlSiteInfo *kl_decide_site(KlCtx *ctx, KlFunc *f, KlNode *n);

/* ------------------------------------------------------------------ fuse.c */

/* r = reduce(act(base(leaf0, leaf1[, leaf2]) + bias) + post) as one kernel call. */
typedef struct KlFusion {
  KlTensorOp base;          /* MATMUL or LINEAR */
  KlNode *base_node;
  KlNode *bias_node;        /* the ADD (or BIAS_ADD) whose other operand is a rank-1 row, or NULL */
  bool bias_first;          /* written bias + base(...) */
  KlNode *act_node;         /* RELU / SIGMOID / TANH, or NULL */
  KlNode *post_node;        /* the ADD (or BIAS_ADD) of a rank-1 row to act's result, or NULL */
  bool post_first;          /* written post + act(...) */
  KlNode *reduce_node;      /* ROWSUM / ROWMEAN, or NULL */
  KlNode *leaf[5];          /* base operands, the bias row, the post row; NULL when absent */
} KlFusion;

/* An elementwise chain (fuse.c kl_plan_ewise), run as one pass by
 * KrApi.tensor_ewise: v = first, then each step in order applies its op
 * (+ - * / with the other operand, or an activation) to v. A tree of such
 * ops is a stack program in Python's evaluation order: a push step ('p')
 * sets v aside and starts a new v from its operand, a tensor leaf; a pop
 * step ('s') applies its op to the value set aside last (on the left) and v. */
#define KL_EW_MAX 16  /* KR_EW_MAX */
#define KL_EW_DEPTH 4 /* KR_EW_DEPTH */
typedef struct KlEwise {
  KlNode *first;              /* the value the chain starts from (any tensor expression) */
  int nsteps;
  KlNode *op[KL_EW_MAX];      /* each step's claimed site (NULL: a push), innermost first */
  KlNode *operand[KL_EW_MAX]; /* its other operand (a bound local or a literal); NULL: an activation,
                                 a pop, or a LEAKY_RELU site's default slope (the runtime's) */
  bool swap[KL_EW_MAX];       /* the operand is written on the left */
  char clamp[KL_EW_MAX];      /* a CLAMP site's steps (one per bound, the operand the bound): 'l' its
                                 lower bound, 'L' its lower bound with its upper one next ('O': of a
                                 CLAMP_ORDERED), 'h' its upper */
  char form[KL_EW_MAX];       /* 'p' a push, 's' a pop, 0 any other step */
} KlEwise;
bool kl_plan_ewise(KlCtx *ctx, KlFunc *f, KlNode *root, KlEwise *out);

/* Marks single-use tensor temporaries whose value can be inlined into the
 * next statement, so chains written across statements fuse too. */
void kl_plan_forwarding(KlCtx *ctx, KlFunc *f);
/* The claimed site behind a (possibly forwarded) expression, or NULL. */
KlNode *kl_forwarded(KlFunc *f, KlNode *n);
/* Fills *out when the claimed site n roots a fusable chain of at least two ops. */
bool kl_plan_fusion(KlCtx *ctx, KlFunc *f, KlNode *n, KlFusion *out);
KlNode *kl_site_operand(KlNode *n, int k);

/* ------------------------------------------------------------------ emit.c, report.c */

#define KL_FLAG_BIND_GLOBALS 1 /* module init does not exec the source */
#define KL_FLAG_TEST_PLUGIN 2  /* enable the test plugin */

void kl_emit_module(KlCtx *ctx, KlModule *m, KlBuf *out);
void kl_emit_report(KlCtx *ctx, KlModule *m, KlBuf *out);
int kl_count_fallback_sites(KlCtx *ctx, KlModule *m);

/* ------------------------------------------------------------------ compile.c (the entry point) */

#define KL_MAX_PLUGINS 4

/* Resolves a Unicode character name (the text of a `\N{NAME}` escape,
 * len bytes, not NUL-terminated) to its code point: true with *cp set,
 * false when the name is unknown. The compiler embeds no name database:
 * kiln._compiler asks the running Python, so a name means exactly what it
 * means to the interpreter the module is built for. Without a hook (kilnc)
 * a \N escape is an error. */
#define KL_MAX_CHAR_NAME 256 /* longer names are unknown without asking (CPython's bound too) */
typedef struct KlNameHook {
  bool (*lookup)(void *user, const char *name, size_t len, uint32_t *cp);
  void *user;
} KlNameHook;

struct KlCtx {
  KlArena arena;
  jmp_buf *fatal;          /* set by kl_compile */
  const char *filename;
  const char *modname;
  const char *src;
  size_t srclen;
  unsigned flags;
  KlNameHook names; /* lookup NULL: none */
  KlDiag *diags, **diag_tail;
  int nerrors;
  /* types */
  KlTypeInfo types[KL_MAX_TYPES];
  int ntypes;
  /* plugins */
  const KlPlugin *plugins[KL_MAX_PLUGINS];
  KlType plugin_tids[KL_MAX_PLUGINS][8];
  int nplugins;
  int next_node_id;
  KlModule *module;
  struct KlTrackedBuf *tracked; /* util.c: buffers to free at the end */
};

typedef struct KlResult {
  bool ok;
  KlBuf c_source;   /* empty unless ok and want_c */
  KlBuf report;     /* JSON */
  KlBuf diagnostics;
  int fallback_sites;
  KlBuf python_functions; /* names separated by '\n' */
} KlResult;

/* Compiles one source file. Never exits, never leaks: everything is freed
 * with kl_result_free. names: how \N{NAME} escapes are resolved (NULL:
 * they are errors). */
void kl_compile(const char *src, size_t len, const char *filename, const char *modname,
                unsigned flags, bool want_c, const KlNameHook *names, KlResult *res);
void kl_result_free(KlResult *res);
/* For golden tests: token (what=0) and AST (what=1) dumps. False on error,
 * with the rendered diagnostics in out. */
bool kl_dump(const char *src, size_t len, const char *filename, int what, const KlNameHook *names, KlBuf *out);

#endif
