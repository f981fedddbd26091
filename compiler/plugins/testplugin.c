/* plugins/testplugin.c — a tiny plugin that exercises every outcome of the
 * plugin interface (enabled only with KL_FLAG_TEST_PLUGIN):
 *   kilntest.relu(x)      claimed, lowered to the native relu
 *   kilntest.reject(...)  rejected with KILN-TEST-001
 *   kilntest.drift(x)     claimed, but lowering disagrees: KILN041
 *   kilntest.conflict(x)  claimed by this plugin and its twin: KILN040
 *   kilntest.anything     not covered
 * Its tensors box as torch tensors. */
#include "plugin_util.h"

static const KlTypeDecl test_types[] = {
    {"kilntest.Tensor1D", "kiln-test/tensor-f32-cpu-1d", 1},
    {"kilntest.Tensor2D", "kiln-test/tensor-f32-cpu-2d", 2},
    {NULL, NULL, 0},
};

static const char *const test_coverage[] = {"kilntest", NULL};

static KlClaim test_claim(const KlSite *s, const KlType *tids) {
  if (s->kind != KL_SK_CALL || !s->target || strncmp(s->target, "kilntest.", 9)) return pu_not_covered();
  const char *fn = s->target + 9;
  bool one_tensor = s->nargs == 1 && s->nkw == 0 && pu_rank(s->args[0], tids);
  if (!strcmp(fn, "reject")) return pu_rejected(KL_KILN_TEST_001, "kilntest.reject is always rejected");
  if (!one_tensor) return pu_not_covered();
  if (!strcmp(fn, "relu")) return pu_claimed("kiln-test/relu", s->args[0]);
  if (!strcmp(fn, "drift")) return pu_claimed("kiln-test/drift", s->args[0]);
  if (!strcmp(fn, "conflict")) return pu_claimed("kiln-test/conflict", s->args[0]);
  return pu_not_covered();
}

static bool test_lower(const KlSite *s, const KlClaim *c, const KlType *tids, KlLowered *out) {
  KlClaim again = test_claim(s, tids);
  if (again.kind != KL_CLAIM_CLAIMED || !pu_eq(again.rule, c->rule)) return false;
  if (pu_eq(c->rule, "kiln-test/drift")) return false; /* deliberately inconsistent */
  *out = pu_op(KL_TOP_RELU, 1, c->result);
  return true;
}

static const KlRuleRecord test_rules[] = {
    {"kiln-test/relu", "kilntest.relu(x)", "claimed", KL_NUM_CODES, true},
    {"kiln-test/reject", "kilntest.reject(...)", "rejected", KL_KILN_TEST_001, true},
    {NULL, NULL, NULL, KL_NUM_CODES, false},
};

const KlPlugin kl_plugin_test = {
    .api_version = KL_PLUGIN_API_VERSION,
    .name = "test",
    .framework = "torch",
    .types = test_types,
    .coverage = test_coverage,
    .claim = test_claim,
    .lower = test_lower,
    .rules = test_rules,
};

/* The twin claims only kilntest.conflict, to provoke KILN040. */
static KlClaim twin_claim(const KlSite *s, const KlType *tids) {
  (void)tids;
  if (s->kind == KL_SK_CALL && pu_eq(s->target, "kilntest.conflict")) return pu_claimed("kiln-test-twin/conflict", KL_T_OBJECT);
  return pu_not_covered();
}

static bool twin_lower(const KlSite *s, const KlClaim *c, const KlType *tids, KlLowered *out) {
  (void)s, (void)c, (void)tids, (void)out;
  return false;
}

static const KlTypeDecl no_types[] = {{NULL, NULL, 0}};
static const KlRuleRecord twin_rules[] = {{NULL, NULL, NULL, KL_NUM_CODES, false}};

const KlPlugin kl_plugin_test_twin = {
    .api_version = KL_PLUGIN_API_VERSION,
    .name = "test-twin",
    .framework = "torch",
    .types = no_types,
    .coverage = test_coverage,
    .claim = twin_claim,
    .lower = twin_lower,
    .rules = twin_rules,
};
