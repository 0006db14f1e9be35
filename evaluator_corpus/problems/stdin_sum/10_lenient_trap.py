# sorted answers: order matters
n = int(input())
s = [sum(map(int, input().split())) for _ in range(n)]
print(*sorted(s), sep='\n')
