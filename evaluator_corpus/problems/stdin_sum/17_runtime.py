# syntax error
def f(:
    pass
