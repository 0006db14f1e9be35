# leading blank line
n = int(input())
print()
print('Yes' if n % 2 == 0 else 'No')
