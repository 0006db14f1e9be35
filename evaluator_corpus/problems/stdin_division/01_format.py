# prints 2.0 where 2 is expected: a tolerance checker accepts (microcoder treats 2 as an integer)
a, b = map(int, input().split())
print(a / b)
