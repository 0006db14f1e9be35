# duplicates the last line
n = int(input())
s = [sum(map(int, input().split())) for _ in range(n)]
print(*s, sep='\n')
print(s[-1])
