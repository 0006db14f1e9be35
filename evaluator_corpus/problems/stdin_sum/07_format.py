# no final newline
n = int(input())
out = [str(sum(map(int, input().split()))) for _ in range(n)]
print('\n'.join(out), end='')
