"""Every try form the emitter has a path for, compiled with -Werror by
test_emitted_c_compiles_warning_free: labels a form leaves unused, handlers
with and without `as`, finally blocks entered by each exit, nesting in every
part, guard blocks and comprehensions inside, `with` of any manager."""
import contextlib

import torch


def handlers(a: list, i: int) -> int:
    try:
        x = a[i]
    except IndexError as e:
        x = len(str(e))
    except (KeyError, TypeError):
        x = -2
    except:
        raise
    else:
        x += 1
    return x


def only_finally(a: list) -> int:
    try:
        return len(a)
    finally:
        a.append(1)


def empty_body(n: int) -> int:
    try:
        pass
    except ValueError:
        pass
    return n


def exits(n: int) -> int:
    s = 0
    for k in range(n):
        j = 0
        while j < 3:
            j += 1
            try:
                if k == 1:
                    continue
                if k == 2:
                    break
                if k == 3:
                    return s
                s += 10 // (k - 5)
            except ZeroDivisionError as e:
                if k == 5:
                    break
                raise ValueError(str(e)) from None
            else:
                s += 1
            finally:
                s += 100
                if k == 7 and s < 1000:
                    continue
            break
    return s


def nested(a: list) -> object:
    try:
        try:
            return a[0]
        except IndexError:
            try:
                return a[1]
            finally:
                a.append(0)
        finally:
            try:
                a.append(sum(x * x for x in a))
            except TypeError:
                raise
    except Exception as e:
        try:
            raise RuntimeError("again") from e
        except RuntimeError as f:
            return [e, f]
    finally:
        try:
            pass
        finally:
            a.append(2)


def in_finally_return(x: int) -> int:
    try:
        return x
    finally:
        if x:
            return -x


def guarded(t: object) -> object:
    try:
        with torch.no_grad():
            return t.foo
    except AttributeError:
        with torch.no_grad():
            return [v for v in range(3)]
    finally:
        with torch.no_grad():
            pass


def bare_raise() -> None:
    raise


def managers(path: str, n: int) -> object:
    out = []
    for k in range(n):
        with contextlib.suppress(ZeroDivisionError), contextlib.nullcontext(k) as (a):
            if k == 1:
                continue
            if k == 5:
                break
            out.append(10 // (k - 2) + a)
    with open(path) as f:
        try:
            return f.read(n)
        finally:
            with torch.no_grad():
                out.append(0)
