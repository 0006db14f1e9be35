#
n, m = map(int, input().split())
print('\n'.join(' '.join(str(i * j) for j in range(1, m + 1)) for i in range(1, n + 1)))
