# trailing space
n = int(input())
print('Yes ' if n % 2 == 0 else 'No ')
