# kilnc-flags: --test-plugin
import kilntest


def f(x: kilntest.Tensor2D) -> kilntest.Tensor2D:
    y = kilntest.reject(x)
    return kilntest.relu(x)
