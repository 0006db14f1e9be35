# leading zeros
n = int(input())
w = input().split()
print(f'{len(set(w)):03d}')
