# floats for integer answers
n = int(input())
a = list(map(int, input().split()))
print(*[float(x) for x in sorted(a)])
