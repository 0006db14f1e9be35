# inverted
n = int(input())
print('No' if n % 2 == 0 else 'Yes')
