# prints both answers
print('Yes')
print('No')
