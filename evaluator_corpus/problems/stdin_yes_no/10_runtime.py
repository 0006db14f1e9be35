# exception after the answer
n = int(input())
print('Yes' if n % 2 == 0 else 'No')
raise ValueError('late')
