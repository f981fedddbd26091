def handlers(x):
    try:
        y = x[0]
    except IndexError as e:
        y = e
    except (KeyError, TypeError):
        y = 2
    except:
        raise
    else:
        y += 1
    finally:
        x.append(y)
    return y


def only_finally(x):
    try:
        return x
    finally:
        x = None


def raise_forms(x):
    raise ValueError(x) from None

