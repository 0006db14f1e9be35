# memory bomb
x = [0] * (10 ** 10)
