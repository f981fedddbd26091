# kilnc-flags: --test-plugin
import kilntest


def f(x: kilntest.Tensor2D) -> kilntest.Tensor2D:
    return kilntest.conflict(x)
